"""identities: what set a player's language (his words, his app's, nothing yet)

Revision ID: 0009_identity_language_from
Revises: 0008_heartbeat_channels
Create Date: 2026-12-05

"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa
import sqlmodel


revision: str = '0009_identity_language_from'
down_revision: Union[str, None] = '0008_heartbeat_channels'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    with op.batch_alter_table('identities', schema=None) as batch_op:
        batch_op.add_column(sa.Column('language_from', sqlmodel.sql.sqltypes.AutoString(length=8), nullable=True))
    # Those who wrote before kept the language their first message gave them: it stays theirs.
    op.execute("UPDATE identities SET language_from = 'said'")


def downgrade() -> None:
    with op.batch_alter_table('identities', schema=None) as batch_op:
        batch_op.drop_column('language_from')
