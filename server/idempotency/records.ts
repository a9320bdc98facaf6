/** The answer of the request that first used a key, replayed byte for byte. */
export interface StoredAnswer {
  status: number;
  /** The body's exact bytes; null when the answer had none. */
  body: Buffer | null;
  /** The headers replayed with it (content-type, location). */
  headers: Record<string, string>;
}

export interface KeyRow {
  id: number;
  fingerprint: string;
  status: number;
  body: Buffer | null;
  headers: string;
  expires_at: string;
}

/** The stored answer of a key's row, as it is replayed. */
export const toStoredAnswer = (row: KeyRow): StoredAnswer => ({
  status: row.status,
  body: row.body === null ? null : Buffer.from(row.body),
  headers: JSON.parse(row.headers) as Record<string, string>,
});
