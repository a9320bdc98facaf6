import type { ConsoleRole, ConsoleUserRecord } from '../../shared/console.ts';

export interface UserRow {
  id: number;
  email: string;
  role: string;
  password_hash: string | null;
  created_at: string;
}

export function toUserRecord(row: UserRow): ConsoleUserRecord {
  return {
    id: row.id,
    email: row.email,
    role: row.role as ConsoleRole,
    active: row.password_hash !== null,
    created_at: row.created_at,
  };
}
