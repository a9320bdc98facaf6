import { describe, expect, it } from 'vitest';
import { isConnectionLoss } from '../../server/storage/connection-loss.ts';

const coded = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('isConnectionLoss: which driver errors answer 503 instead of 500', () => {
  it.each([
    ['ECONNREFUSED', coded('ECONNREFUSED')],
    ['ECONNRESET', coded('ECONNRESET')],
    ['57P01 admin_shutdown', coded('57P01')],
    ['57P03 cannot_connect_now', coded('57P03')],
    ['08006 connection_failure', coded('08006')],
    ['08P01 protocol_violation (class 08)', coded('08P01')],
    ['53300 too_many_connections', coded('53300')],
    ['pg: Connection terminated unexpectedly', new Error('Connection terminated unexpectedly')],
    [
      'pg: Connection terminated due to connection timeout',
      new Error('Connection terminated due to connection timeout'),
    ],
    ['pg-pool connect timeout', new Error('timeout exceeded when trying to connect')],
    [
      'a checked-out client cut between queries',
      new Error('Client has encountered a connection error and is not queryable'),
    ],
    ['wrapped as a cause', new Error('outer', { cause: coded('ECONNREFUSED') })],
    ['inside an AggregateError', new AggregateError([coded('ECONNREFUSED')], '')],
  ])('%s: yes', (_name, error) => {
    expect(isConnectionLoss(error)).toBe(true);
  });

  it.each([
    ['23505 unique_violation', coded('23505')],
    ['42P01 undefined_table', coded('42P01')],
    ['SQLITE_BUSY', coded('SQLITE_BUSY')],
    ['a plain bug', new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['not an error', 'ECONNREFUSED'],
  ])('%s: no', (_name, error) => {
    expect(isConnectionLoss(error)).toBe(false);
  });
});
