"""heartbeats: the channels each process carries, so that /healthz names one set up on the web and not the worker

Revision ID: 0008_heartbeat_channels
Revises: 0007_outbox_unsent
Create Date: 2026-12-03

"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa
import sqlmodel


revision: str = '0008_heartbeat_channels'
down_revision: Union[str, None] = '0007_outbox_unsent'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    with op.batch_alter_table('heartbeats', schema=None) as batch_op:
        batch_op.add_column(sa.Column('channels', sqlmodel.sql.sqltypes.AutoString(length=160), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('heartbeats', schema=None) as batch_op:
        batch_op.drop_column('channels')
