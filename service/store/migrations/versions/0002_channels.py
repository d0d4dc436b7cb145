"""channels: Telegram groups, private reachability, inline buttons, delivery reports

Revision ID: 0002_channels
Revises: 0001
Create Date: 2026-11-30

"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa
import sqlmodel


# revision identifiers, used by Alembic.
revision: str = '0002_channels'
down_revision: Union[str, None] = '0002'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    with op.batch_alter_table('identities', schema=None) as batch_op:
        batch_op.add_column(sa.Column('direct', sa.Boolean(), nullable=False, server_default=sa.false()))
    with op.batch_alter_table('games', schema=None) as batch_op:
        batch_op.add_column(sa.Column('group_id', sa.Integer(), nullable=True))
        batch_op.create_foreign_key('fk_games_group_id_identities', 'identities', ['group_id'], ['id'])
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.add_column(sa.Column('buttons', sa.JSON(), nullable=True))
        batch_op.add_column(sa.Column('delivery', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.drop_column('delivery')
        batch_op.drop_column('buttons')
    with op.batch_alter_table('games', schema=None) as batch_op:
        batch_op.drop_constraint('fk_games_group_id_identities', type_='foreignkey')
        batch_op.drop_column('group_id')
    with op.batch_alter_table('identities', schema=None) as batch_op:
        batch_op.drop_column('direct')
