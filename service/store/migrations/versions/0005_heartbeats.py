"""heartbeats: the last sign of life of each worker and beat process, read by /healthz and lupus doctor

Revision ID: 0005_heartbeats
Revises: 0004_channels_extras
Create Date: 2026-12-01

"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa
import sqlmodel


revision: str = '0005_heartbeats'
down_revision: Union[str, None] = '0004_channels_extras'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table('heartbeats',
    sa.Column('name', sqlmodel.sql.sqltypes.AutoString(length=160), nullable=False),
    sa.Column('role', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('started_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('seen_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('name')
    )
    with op.batch_alter_table('heartbeats', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_heartbeats_role'), ['role'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('heartbeats', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_heartbeats_role'))
    op.drop_table('heartbeats')
