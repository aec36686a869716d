// Queries built with kysely, compiled once and run by better-sqlite3 with named parameters bound per call.
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compile, param, queryBuilder as qb } from '../../src/state/compiled-statement.ts';
import { migrate } from '../../src/state/migrations.ts';

let db: BetterSqlite3.Database;
beforeEach(() => {
  db = new BetterSqlite3(':memory:');
  migrate(db, ':memory:');
});
afterEach(() => db.close());

const insertRun = () =>
  compile(
    db,
    qb.insertInto('runs').values({
      id: param<string>('id'),
      command: param<string>('command'),
      started_at: param<number>('at'),
      ended_at: null,
      // A literal the builder passes as a parameter: bound as itself, not looked up by name.
      outcome: 'running',
      counts: '{}',
    }),
  );

describe('compile', () => {
  it('binds named parameters by name on each call, and literals as themselves', () => {
    const insert = insertRun();
    insert.run({ id: 'r1', command: 'reconcile', at: 10 });
    insert.run({ command: 'plan', at: 20, id: 'r2' });
    const byCommand = compile(
      db,
      qb
        .selectFrom('runs')
        .select(['id', 'outcome', 'counts'])
        .where('command', '=', param<string>('command'))
        .where('outcome', '=', 'running'),
    );
    expect(byCommand.get({ command: 'plan' })).toEqual({ id: 'r2', outcome: 'running', counts: '{}' });
    expect(byCommand.all({ command: 'reconcile' })).toEqual([{ id: 'r1', outcome: 'running', counts: '{}' }]);
    expect(byCommand.get({ command: 'none' })).toBeUndefined();
  });

  it('reads rows as arrays in select-list order, one or many, again and again', () => {
    const insert = insertRun();
    for (const [id, at] of [
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ] as const)
      insert.run({ id, command: 'reconcile', at });
    const since = compile(
      db,
      qb.selectFrom('runs').select(['started_at', 'id']).where('started_at', '>=', param<number>('from')).orderBy('id'),
    );
    expect([...since.tuples({ from: 2 })]).toEqual([
      [2, 'b'],
      [3, 'c'],
    ]);
    expect([...since.tuples({ from: 3 })]).toEqual([[3, 'c']]);
    expect(since.tuple({ from: 1 })).toEqual([1, 'a']);
    expect(since.tuple({ from: 4 })).toBeUndefined();
    // The object forms still give objects after the array forms were used.
    expect(since.get({ from: 3 })).toEqual({ started_at: 3, id: 'c' });
  });

  it('names a parameter the caller left out, with the statement, rather than binding NULL', () => {
    const insert = insertRun();
    expect(() => insert.run({ id: 'r1', at: 10 })).toThrow(
      /^state db: no value for parameter "command" in insert into "runs" \(/,
    );
    expect(() => insert.run()).toThrow('no value for parameter "id"');
    expect(db.prepare('SELECT count(*) AS n FROM runs').get()).toEqual({ n: 0 });
  });
});
