"""outbox: how many parts of a text too long for one message went already

Revision ID: 0006_outbox_parts
Revises: 0005_heartbeats
Create Date: 2026-12-01

"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa


revision: str = '0006_outbox_parts'
down_revision: Union[str, None] = '0005_heartbeats'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.add_column(sa.Column('parts_sent', sa.Integer(), server_default='0', nullable=False))


def downgrade() -> None:
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.drop_column('parts_sent')
