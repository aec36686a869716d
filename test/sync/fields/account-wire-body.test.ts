// An account's rank and game points as they go on the wire: a rank with its division as one combined value (the
// real server keeps only the rank's label when they come apart), game_points inside parameters as well as at the
// top level (the real server drops the top-level one). Against the sandbox: the requests the runs send, and a
// second run that finds nothing to do.
import { describe, expect, it } from 'vitest';
import type { DesiredOffer } from '../../../src/catalogue/desired-offer.ts';
import { accountWireBody } from '../../../src/sync/fields/account-wire-body.ts';
import { harnessPerTest } from '../../support/harness.ts';
import { recordingClient } from '../../support/recording-client.ts';

const openHarness = harnessPerTest();

const account = (fields: Record<string, unknown>): DesiredOffer =>
  ({
    kind: 'account',
    externalId: 'a-1',
    fields: { title: 'A', price: 100, ...fields },
    images: [],
    hash: 'h',
    source: { file: 'accounts/a.json' },
  }) as unknown as DesiredOffer;

describe('accountWireBody', () => {
  it.each([
    [
      'a rank and its division, combined',
      { current_rank: 'gold', current_division: 'II' },
      { title: 'A', current_rank: 'gold', current_division: 'II' },
      { title: 'A', rank: 'gold II' },
    ],
    [
      'a change of the division alone still sends the rank with it',
      { current_rank: 'gold', current_division: 'I' },
      { current_division: 'I' },
      { rank: 'gold I' },
    ],
    [
      'flex rank likewise',
      { flex_rank: 'silver', flex_division: 'IV' },
      { flex_rank: 'silver' },
      { flex_rank: 'silver IV' },
    ],
    [
      'a rank without a division (master) is sent as it is',
      { current_rank: 'master' },
      { current_rank: 'master' },
      { current_rank: 'master' },
    ],
    [
      'numeric ids are sent apart: their combined form is not in the document',
      { current_rank: 4, current_division: 2 },
      { current_rank: 4, current_division: 2 },
      { current_rank: 4, current_division: 2 },
    ],
    [
      'game_points inside the whole parameters too',
      { game_points: 500, parameters: { level: 30 } },
      { game_points: 500 },
      { game_points: 500, parameters: { level: 30, game_points: 500 } },
    ],
    [
      'parameters changed: game_points kept inside them',
      { game_points: 500, parameters: { level: 31 } },
      { parameters: { level: 31 } },
      { parameters: { level: 31, game_points: 500 } },
    ],
    [
      'neither sent: nothing added',
      { game_points: 500, current_rank: 'gold', current_division: 'II' },
      { price: 5 },
      { price: 5 },
    ],
  ])('%s', (_what, desired, body, wire) => {
    expect(accountWireBody(body, account(desired))).toEqual(wire);
  });

  it('leaves the bodies of items and top-ups alone', () => {
    const item = { ...account({}), kind: 'item' } as unknown as DesiredOffer;
    expect(accountWireBody({ game_points: 1, current_rank: 'gold' }, item)).toEqual({
      game_points: 1,
      current_rank: 'gold',
    });
  });
});

describe('an account with a ranked division and game points, against the sandbox', () => {
  it('is created and patched with the combined rank and game_points in parameters, and then converges', async () => {
    const h = await openHarness();
    const bodies: unknown[] = [];
    const wrap = (c: Parameters<typeof recordingClient>[0]) =>
      recordingClient(c, (resource, method, args) => {
        if (resource === 'accounts' && method === 'create') bodies.push(args[0]);
        if (resource === 'accounts' && method === 'update') bodies.push(args[1]);
        return `${resource}.${method}`;
      }).client;
    const write = (rank: string, gamePoints: number) =>
      h.write(
        'accounts/a.json',
        JSON.stringify([
          { external_id: 'a-1', title: 'A', price: 900, rank, game_points: gamePoints, parameters: { level: 30 } },
          // No parameters of its own: game_points alone goes inside them.
          { external_id: 'a-2', title: 'B', price: 900, game_points: 7 },
        ]),
      );
    write('Gold II', 500);
    expect((await h.reconcile({}, undefined, wrap)).report.outcome).toBe('converged');
    expect(bodies[0]).toMatchObject({ rank: 'gold II', game_points: 500, parameters: { level: 30, game_points: 500 } });
    expect(bodies[0]).not.toHaveProperty('current_rank');
    expect(bodies[0]).not.toHaveProperty('current_division');
    expect(bodies[1]).toMatchObject({ game_points: 7, parameters: { game_points: 7 } });
    h.sandbox.resetCounters();
    await h.reconcile({}, undefined, wrap);
    expect(h.writes()).toBe(0);
    write('Gold I', 600);
    await h.reconcile({}, undefined, wrap);
    expect(bodies[2]).toEqual({ rank: 'gold I', game_points: 600, parameters: { level: 30, game_points: 600 } });
    h.sandbox.resetCounters();
    await h.reconcile({}, undefined, wrap);
    expect(h.writes()).toBe(0);
    expect(h.sandbox.dump().accounts[0]).toMatchObject({
      current_rank: 'gold',
      current_division: 'I',
      game_points: 600,
    });
  });
});
