/**
 * client-process: how the client's run ended. Not a rule of the protocol but the run's own outcome: a client that
 * could not connect, crashed or exited with an error is never green, whatever the few messages it sent were worth.
 */
import { AUTH_SCENARIOS } from '../../mocks/auth/scenarios.js';
import { legacyGate } from './auth-helpers.js';
import { ending, fromClient, type ClientSuite } from './helpers.js';

/**
 * Scenarios in which the mock does something wrong on purpose: a client may well exit with an error there (the
 * authorization set-ups a client must refuse, and a server that never grants enough scope, included).
 */
const FAULTS = [
  'unknown-tool',
  'server-error',
  'dropped-answer',
  'session-expired',
  ...AUTH_SCENARIOS.filter((d) => d.refuse || d.mayGiveUp || d.protected.stepUp?.never).map((d) => d.name),
];
const REFUSE = AUTH_SCENARIOS.filter((d) => d.refuse).map((d) => d.name);

export const clientProcess: ClientSuite = {
  id: 'client-process',
  title: 'Client process',
  description:
    'The client ran to its end: it started, connected, did its work and exited 0 (a crash, a non-zero exit or a client that never connected fails the run).',
  cases: [
    {
      id: 'client-process/exit',
      title: 'the client exits 0 after its work',
      level: 'MUST',
      spec: 'basic/lifecycle',
      requirement:
        'Not a requirement of the spec but the outcome of the run: the client starts, connects to the mock, does its work and exits with code 0 (in a scenario where the mock errs on purpose, another exit is recorded as info).',
      run(ctx) {
        if (ctx.aborted?.startsWith('the client could not be started'))
          return { verdict: 'fail', message: ctx.aborted };
        const answered = ctx.log.filter(
          (m) => m.direction === 'from-server' && m.kind === 'response' && m.method !== 'server/discover',
        );
        const sent = fromClient(ctx).length;
        const connected = answered.length > 0;
        const c = ctx.client;
        // A set-up the client must refuse: giving up, whatever the exit code, is right (client-auth grades the refusal).
        if (REFUSE.includes(ctx.scenario) && !c.endedByHarness && !c.signal)
          return {
            verdict: 'info',
            message: `${ending(ctx)} in scenario ${ctx.scenario}, a set-up a client must refuse`,
          };
        if (c.endedByHarness) {
          if (!connected)
            return {
              verdict: 'fail',
              message: `the client never got a request answered (${sent} message${sent === 1 ? '' : 's'} sent); ${ending(ctx)}`,
            };
          return {
            verdict: 'info',
            message: `${ending(ctx)}: a client that keeps running (a long-lived one) is ended at --timeout`,
          };
        }
        if (c.signal)
          return {
            verdict: 'fail',
            message: `${ending(ctx)} (it crashed); ${connected ? `${answered.length} requests had been answered` : 'it never got a request answered'}`,
          };
        if (c.exitCode === 0)
          return connected
            ? {
                verdict: 'pass',
                message: `the client exited with code 0 after ${answered.length} answered request${answered.length === 1 ? '' : 's'}`,
              }
            : {
                verdict: 'warn',
                message: `the client exited with code 0 without any request answered (${sent} message${sent === 1 ? '' : 's'} sent): did it connect at all?`,
              };
        if (FAULTS.includes(ctx.scenario))
          return {
            verdict: 'info',
            message: `${ending(ctx)} in scenario ${ctx.scenario}, where the mock errs on purpose`,
          };
        // A schema whose $ref cannot be resolved without a fetch: refusing it (even by an error) is what the spec asks.
        if (ctx.scenario === 'remote-ref')
          return {
            verdict: 'info',
            message: `${ending(ctx)} in scenario remote-ref, whose tool schema $refs a network URL: a client should reject a schema it cannot resolve (client-schemas grades the fetch)`,
          };
        // A 2025-03-26 fallback scenario binds only a client that speaks that version (client-auth's rule).
        return legacyGate(ctx, {
          verdict: 'fail',
          message: `${ending(ctx)}${connected ? '' : ' and never got a request answered: it could not connect'}`,
        });
      },
    },
  ],
};
