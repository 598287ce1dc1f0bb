/**
 * Lifecycle: the initialize handshake, version negotiation, the initialized notification, ping, id matching and
 * shutdown. https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle
 * In 2026-07-28 (stateless) there is no handshake: lifecycle/initialize checks the server/discover answer, the
 * initialized notification does not exist and ping was removed; lifecycle/result-type checks that every result
 * says its resultType. https://modelcontextprotocol.io/specification/2026-07-28/server/discover
 */
import type { CaseContext, Outcome, Suite } from '../core/suite.js';
import { PROTOCOL_VERSIONS, isProtocolVersion } from '../core/schema/versions.js';
import { isStateless } from '../core/negotiate.js';
import { brief, describeError, ids, isObject, nothingHeard } from './helpers.js';
import { fatalLine } from '../core/session.js';
import { META } from '../core/wire.js';

/** The negotiation steps in a sentence (what was tried before the version in force). */
function stepsText(ctx: CaseContext): string {
  const steps = ctx.init.negotiation?.steps ?? [];
  return steps.length > 1 ? ` (negotiation: ${steps.map((s) => s.message).join('; then ')})` : '';
}

/** lifecycle/initialize in a stateless version: server/discover is answered with its versions, capabilities and name. */
function discoverCheck(ctx: CaseContext): Outcome {
  const reply = ctx.init.discover;
  const failure = ctx.init.discoverFailure;
  if (!reply)
    return {
      verdict: 'fail',
      message: `server/discover (which every ${ctx.version} server must implement) got no answer: ${failure?.message ?? 'not sent'}`,
      messageIds: ids(failure && 'request' in failure ? (failure as { request?: never }).request : undefined),
    };
  const mids = ids(reply.request, reply.response);
  if (reply.error)
    return {
      verdict: 'fail',
      message: `server/discover was answered with an error: ${describeError(reply.error)}; every ${ctx.version} server must implement it`,
      messageIds: mids,
    };
  const r = reply.result!;
  const problems: string[] = [];
  if (!Array.isArray(r.supportedVersions) || !r.supportedVersions.length)
    problems.push('no non-empty supportedVersions array');
  if (!isObject(r.capabilities)) problems.push('no capabilities object');
  if (typeof r.resultType !== 'string') problems.push('no resultType');
  const meta = isObject(r._meta) ? r._meta : {};
  const si = meta[META.serverInfo] ?? r.serverInfo;
  if (problems.length)
    return {
      verdict: 'fail',
      message: `server/discover result is incomplete: ${problems.join('; ')}`,
      messageIds: mids,
    };
  const caps = Object.keys(r.capabilities as object);
  const name = isObject(si) ? `${String(si.name)} ${String(si.version)}` : 'the server';
  const noInfo = isObject(si)
    ? ''
    : ' (it does not name itself: _meta io.modelcontextprotocol/serverInfo is recommended on every result)';
  return {
    verdict: 'pass',
    message: `${name} answered server/discover (no initialize in ${ctx.version}) with versions ${(r.supportedVersions as unknown[]).map(String).join(', ')} and capabilities: ${caps.length ? caps.join(', ') : 'none'}${noInfo}${stepsText(ctx)}`,
    messageIds: mids,
  };
}

export const lifecycle: Suite = {
  id: 'lifecycle',
  title: 'Lifecycle',
  description: 'initialize, version negotiation, initialized, ping, ids, shutdown',
  cases: [
    {
      id: 'lifecycle/initialize',
      title: 'initialize is answered with protocolVersion, capabilities and serverInfo',
      level: 'MUST',
      spec: 'basic/lifecycle#initialization',
      requirement:
        'The server answers initialize with a result naming its protocol version, its capabilities and its name and version.',
      requires: { needs: 'handshake' },
      async run(ctx) {
        if (
          ctx.init.handshake === 'server/discover' ||
          (ctx.features.handshake === 'server/discover' && ctx.init.handshake !== 'initialize')
        )
          return discoverCheck(ctx);
        const { reply, failure } = ctx.init;
        if (failure)
          return { verdict: 'fail', message: failure.message, messageIds: ids(reply?.request, reply?.response) };
        if (!reply) return { verdict: 'fail', message: 'initialize was not sent' };
        const mids = ids(reply.request, reply.response);
        if (reply.error)
          return {
            verdict: 'fail',
            message: `initialize was answered with an error: ${describeError(reply.error)}`,
            messageIds: mids,
          };
        const r = reply.result!;
        const problems: string[] = [];
        if (typeof r.protocolVersion !== 'string') problems.push('no protocolVersion string');
        if (!isObject(r.capabilities)) problems.push('no capabilities object');
        const si = r.serverInfo;
        if (!isObject(si)) problems.push('no serverInfo object');
        else {
          if (typeof si.name !== 'string') problems.push('serverInfo.name is not a string');
          if (typeof si.version !== 'string') problems.push('serverInfo.version is not a string');
        }
        if (problems.length)
          return {
            verdict: 'fail',
            message: `initialize result is incomplete: ${problems.join('; ')}`,
            messageIds: mids,
          };
        const name = `${String((si as Record<string, unknown>).name)} ${String((si as Record<string, unknown>).version)}`;
        const caps = Object.keys(r.capabilities as object);
        return {
          verdict: 'pass',
          message: `${name} answered initialize with protocol ${String(r.protocolVersion)} and capabilities: ${caps.length ? caps.join(', ') : 'none'}${stepsText(ctx)}`,
          messageIds: mids,
        };
      },
    },
    {
      id: 'lifecycle/version-negotiation',
      title: 'the protocol version answered is one that was published (and the one asked for, if forced)',
      level: 'MUST',
      spec: 'basic/lifecycle#version-negotiation',
      requirement:
        'The server answers with the version the client asked for if it supports it, otherwise with another version it supports; a version that does not exist leaves the client nothing to speak.',
      requires: { needs: 'handshake' },
      async run(ctx) {
        if (
          ctx.init.handshake === 'server/discover' ||
          (ctx.features.handshake === 'server/discover' && ctx.init.handshake !== 'initialize')
        ) {
          const d = ctx.init.discover;
          const listed = Array.isArray(d?.result?.supportedVersions)
            ? (d!.result!.supportedVersions as unknown[])
            : undefined;
          const dm = ids(d?.request, d?.response);
          if (!listed) {
            const why = ctx.init.negotiation?.steps.at(-1)?.message ?? 'server/discover gave no list of versions';
            return {
              verdict: 'fail',
              message: ctx.forcedVersion ? `--protocol-version ${ctx.version}: ${why}` : why,
              messageIds: dm,
            };
          }
          const unknown = listed.filter((v) => !isProtocolVersion(v));
          if (!listed.includes(ctx.version)) {
            // Forced (--protocol-version): a list without the version is a legal answer — the server does not serve it.
            if (ctx.forcedVersion)
              return {
                verdict: 'info',
                message: `--protocol-version ${ctx.version}: the server does not serve ${ctx.version} (server/discover lists ${JSON.stringify(listed)}); a server offers the versions it supports, which is negotiation, not a fault`,
                messageIds: dm,
              };
            return {
              verdict: 'fail',
              message: `server/discover lists ${JSON.stringify(listed)}, without ${ctx.version}`,
              messageIds: dm,
            };
          }
          const note = unknown.length
            ? `; it also lists ${unknown.map((v) => JSON.stringify(v)).join(', ')}, which no published MCP version is (ignored)`
            : '';
          return {
            verdict: 'pass',
            message: `server/discover lists ${ctx.version}${note}; every request carries it in _meta io.modelcontextprotocol/protocolVersion${stepsText(ctx)}`,
            messageIds: dm,
          };
        }
        const reply = ctx.init.reply;
        if (!reply?.result) {
          const why = ctx.init.negotiation?.steps.at(-1);
          if (why && ctx.init.negotiation?.handshake === 'none')
            return { verdict: 'fail', message: `no version could be agreed: ${why.message}${stepsText(ctx)}` };
          return { verdict: 'skip', message: 'no initialize result to look at' };
        }
        const answered = reply.result.protocolVersion;
        const offered = ctx.init.offered;
        const mids = ids(reply.request, reply.response);
        if (!isProtocolVersion(answered)) {
          return {
            verdict: 'fail',
            message: `asked for ${offered}, the server answered ${JSON.stringify(answered)}, which is no published MCP version (${PROTOCOL_VERSIONS.join(', ')})`,
            messageIds: mids,
          };
        }
        if (isStateless(answered)) {
          return {
            verdict: 'fail',
            message: `asked for ${offered} with initialize, the server answered ${answered}, a version that has no initialize (it is negotiated with server/discover); the run continues with ${offered}`,
            messageIds: mids,
          };
        }
        if (answered === offered)
          return {
            verdict: 'pass',
            message: `asked for ${offered}, the server agreed${stepsText(ctx)}`,
            messageIds: mids,
          };
        // Forced (--protocol-version): a counter-offer of another published version is legal negotiation — the
        // server does not serve the version asked for (as --all-versions reports it), not a fault.
        if (ctx.forcedVersion) {
          return {
            verdict: 'info',
            message: `--protocol-version ${offered}: the server does not serve ${offered}; it answered initialize with ${answered}, a published version it supports (a counter-offer is legal negotiation), and the run continues with ${answered}`,
            messageIds: mids,
          };
        }
        return {
          verdict: 'pass',
          message: `asked for ${offered}, the server answered ${answered} (a published version it supports); the run continues with ${answered}${stepsText(ctx)}`,
          messageIds: mids,
        };
      },
    },
    {
      id: 'lifecycle/initialized-notification',
      title: 'notifications/initialized gets no reply',
      level: 'MUST',
      spec: 'basic#notifications',
      requirement:
        'A notification is never answered: the server takes notifications/initialized without sending a response.',
      requires: { feature: 'initializedNotification' },
      async run(ctx) {
        const seq = ctx.init.initializedSeq;
        if (seq === undefined) return { verdict: 'skip', message: 'notifications/initialized was not sent' };
        // Give a reply a chance to arrive: a ping round trip after the notification.
        const ping = await ctx.session.request('ping');
        // A reply is looked for up to the answer to the first request sent after the notification: this ping, or in a
        // run with early work the heartbeat that went out with the notification. What comes unmatched after that may
        // answer another notification sent since (robustness/unknown-notification's early one), not this one.
        const log = ctx.session.log;
        const firstAfter = log.find((m) => m.seq > seq && m.direction === 'to-server' && m.kind === 'request');
        const firstAnswer =
          firstAfter && log.find((m) => m.direction === 'from-server' && m.inReplyTo === firstAfter.seq);
        const until = firstAnswer && firstAnswer.seq < ping.response.seq ? firstAnswer : ping.response;
        const suspects = log.filter(
          (m) =>
            m.seq > seq &&
            m.seq < until.seq &&
            m.direction === 'from-server' &&
            (m.kind === 'response' || m.kind === 'error') &&
            m.inReplyTo === undefined,
        );
        if (suspects.length) {
          return {
            verdict: 'fail',
            message: `the server answered the notification: ${suspects.map((m) => m.raw.slice(0, 200)).join(' | ')}`,
            messageIds: [seq, ...suspects.map((m) => m.seq)],
          };
        }
        const bound = until === ping.response ? ping.request : firstAfter!;
        const what = bound.method === 'ping' ? 'a ping' : bound.method;
        return {
          verdict: 'pass',
          message: `no reply to notifications/initialized; the server answered ${what} sent after it`,
          messageIds: [seq, ...ids(bound, until), ...(until === ping.response ? [] : ids(ping.request, ping.response))],
        };
      },
    },
    {
      id: 'lifecycle/ping',
      title: 'ping is answered with an empty result',
      level: 'MUST',
      spec: 'basic/utilities/ping',
      requirement: 'The receiver of a ping answers promptly with an empty result.',
      requires: { feature: 'ping' },
      async run(ctx) {
        const reply = await ctx.session.request('ping');
        const mids = ids(reply.request, reply.response);
        if (reply.error)
          return {
            verdict: 'fail',
            message: `ping was answered with an error: ${describeError(reply.error)}`,
            messageIds: mids,
          };
        const raw = (reply.response.json as Record<string, unknown>).result;
        if (!isObject(raw))
          return {
            verdict: 'fail',
            message: `ping result is ${JSON.stringify(raw)}, expected an empty object {}`,
            messageIds: mids,
          };
        const extra = Object.keys(raw).filter((k) => k !== '_meta');
        if (extra.length)
          return {
            verdict: 'warn',
            message: `ping result should be empty; it has ${extra.join(', ')}`,
            messageIds: mids,
          };
        return {
          verdict: 'pass',
          message: `ping answered with {} in ${Math.round(reply.response.t - reply.request.t)} ms`,
          messageIds: mids,
        };
      },
    },
    {
      id: 'lifecycle/result-type',
      title: 'every result carries resultType (2026-07-28)',
      level: 'MUST',
      spec: 'schema#resulttype',
      requirement:
        'From 2026-07-28 every result a server sends says what kind of result it is in resultType ("complete", or "input_required" when the client must supply more input); earlier versions have no such field (skipped).',
      requires: { feature: 'resultType', needs: 'log' },
      async run(ctx) {
        const results = ctx.session.log.filter((m) => m.direction === 'from-server' && m.kind === 'response');
        if (!results.length) return { verdict: 'skip', message: 'the server sent no results' };
        const bad = results.filter((m) => {
          const r = isObject(m.json) ? m.json.result : undefined;
          return !isObject(r) || typeof r.resultType !== 'string';
        });
        if (bad.length) {
          const shown = bad
            .slice(0, 5)
            .map((m) => `message ${m.seq} (${m.method ?? 'unknown method'}, id ${JSON.stringify(m.id)})`)
            .join('; ');
          return {
            verdict: 'fail',
            message: `${bad.length} of ${results.length} results have no resultType string: ${shown}${bad.length > 5 ? '; …' : ''}`,
            messageIds: bad.map((m) => m.seq),
          };
        }
        const kinds = [
          ...new Set(results.map((m) => String((m.json as { result: { resultType: string } }).result.resultType))),
        ];
        const odd = kinds.filter((k) => k !== 'complete' && k !== 'input_required');
        return {
          verdict: 'pass',
          message: `all ${results.length} results carry resultType (${kinds.join(', ')})${odd.length ? `; ${odd.join(', ')} is not one of the types the spec names` : ''}`,
        };
      },
    },
    {
      id: 'lifecycle/ids-matched',
      title: 'every response carries the id of a request that was sent, once',
      level: 'MUST',
      spec: 'basic#responses',
      requirement:
        'A response carries the id of the request it answers; no response comes for an id never sent, and none twice.',
      requires: { needs: 'log' },
      async run(ctx) {
        const log = ctx.session.log;
        const bad = ctx.session.idAnomalies.filter(
          (a) => a.problem === 'unknown-id' || a.problem === 'duplicate-answer',
        );
        const late = ctx.session.idAnomalies.filter((a) => a.problem === 'late-answer');
        const lateNote = late.length ? ` (${late.length} came after their request had timed out)` : '';
        const answers = log.filter(
          (m) => m.direction === 'from-server' && (m.kind === 'response' || m.kind === 'error'),
        ).length;
        if (bad.length) {
          const lines = bad.slice(0, 5).map((a) => {
            const m = log[a.seq]!;
            return `${a.problem === 'unknown-id' ? 'answer for id never sent' : 'second answer for id'} ${JSON.stringify(m.id)} (message ${a.seq})`;
          });
          return {
            verdict: 'fail',
            message: `${bad.length} of ${answers} answers do not match a waiting request: ${lines.join('; ')}`,
            messageIds: bad.map((a) => a.seq),
          };
        }
        if (!answers) return { verdict: 'skip', message: 'the server sent no answer: no id to match' };
        return { verdict: 'pass', message: `all ${answers} answers matched the id of a request${lateNote}` };
      },
    },
    {
      id: 'lifecycle/shutdown',
      title: 'the server exits when its stdin is closed',
      level: 'SHOULD',
      spec: 'basic/lifecycle#shutdown',
      requirement:
        "Over stdio the client ends a session by closing the server's input, then sends SIGTERM if the server does not exit in time, then SIGKILL. Exiting with code 0 when stdin closes passes (how long it took is said); a non-zero exit code, an end by a signal nobody sent, or a fatal error on stderr after stdin closed warns (with the code and the line); needing SIGTERM after the grace period warns; needing SIGKILL means SIGTERM was ignored (warn). A server started with --start (HTTP) is reported the same way, but its SIGKILL is info: over HTTP a session ends by closing its connections.",
      requires: { needs: 'log' },
      async run(ctx) {
        const p = ctx.transport.processInfo();
        if (!p) return { verdict: 'skip', message: 'the harness did not start the server process' };
        if (ctx.transport.kind !== 'stdio') {
          // Over HTTP the spec's shutdown is closing the connections; how the process the harness started with
          // --start ends is reported, not graded (the stdio SHOULD does not bind it).
          const how =
            p.shutdown === 'exited'
              ? `exited with code ${p.exitCode} when its stdin was closed`
              : p.shutdown === 'SIGTERM'
                ? 'ended on SIGTERM after its stdin was closed'
                : p.shutdown === 'SIGKILL'
                  ? 'ignored stdin closing and SIGTERM; it was killed (SIGKILL)'
                  : undefined;
          if (how)
            return {
              verdict: p.shutdown === 'exited' ? 'pass' : 'info',
              message: `the server started with --start ${how}; over HTTP a session ends by closing its connections, so this is reported, not graded`,
            };
        }
        // A server that never said a word opened no session: how it ended is no shutdown of one (and a crash before
        // the first word is the failing case's, not this one's).
        const silent =
          p.shutdown === 'exited'
            ? nothingHeard(
                ctx,
                `nothing came from the server, so no session was opened to end (it exited with code ${p.exitCode} once its stdin was closed)`,
              )
            : undefined;
        if (silent) return silent;
        const after = p.shutdownMs === undefined ? '' : ` ${p.shutdownMs} ms after stdin was closed`;
        const fatal = (p.stderrAfterClose ?? []).find(fatalLine);
        const said = fatal ? `; it wrote to stderr: ${brief(fatal, 200)}` : '';
        switch (p.shutdown) {
          case 'exited': {
            if (p.exitCode === null)
              return {
                verdict: 'warn',
                message: `ended by ${p.signal ?? 'a signal'} it was not sent${after}: not a clean exit${said}`,
              };
            if (p.exitCode !== 0)
              return {
                verdict: 'warn',
                message: `exited with code ${p.exitCode}${after}: a clean shutdown exits with 0${said}`,
              };
            if (fatal)
              return {
                verdict: 'warn',
                message: `exited with code 0${after}, but reported a fatal error as it went${said}`,
              };
            return { verdict: 'pass', message: `exited with code 0${after}` };
          }
          case 'SIGTERM':
            return {
              verdict: 'warn',
              message: `still running when the grace period after stdin was closed ran out (--shutdown-grace): it ended only on SIGTERM${after ? `,${after}` : ''}; a server should exit when its input ends${said}`,
            };
          case 'SIGKILL':
            return {
              verdict: 'warn',
              message: `still running after stdin was closed and after SIGTERM; it had to be killed (SIGKILL)${said}`,
            };
          case 'already-exited':
            return {
              verdict: 'skip',
              message: `not testable: ${ctx.transport.closeInfo?.reason ?? 'the server exited'} before the harness closed its stdin`,
            };
          default:
            return { verdict: 'skip', message: 'the server was never started' };
        }
      },
    },
  ],
};
