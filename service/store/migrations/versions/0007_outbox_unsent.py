"""outbox: the unsent rows indexed by reader, in order

Revision ID: 0007_outbox_unsent
Revises: 0006_outbox_parts
Create Date: 2026-12-02

"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa


revision: str = '0007_outbox_unsent'
down_revision: Union[str, None] = '0006_outbox_parts'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

UNSENT = sa.text("status IN ('pending', 'sending')")


def upgrade() -> None:
    op.create_index('ix_outbox_unsent_by_reader', 'outbox', ['identity_id', 'id'],
                    postgresql_where=UNSENT, sqlite_where=UNSENT)


def downgrade() -> None:
    op.drop_index('ix_outbox_unsent_by_reader', table_name='outbox')
