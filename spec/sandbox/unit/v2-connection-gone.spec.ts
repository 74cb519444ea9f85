// The v2 runtime answers 404 `client_not_found` for an unknown connection and for an unknown session
// a request names alike; only the first may end the client's connection.
import { AcpHttpError } from "../../../lib/acp-http/index.js";
import { V1_PROFILE, V2_PROFILE } from "../../../lib/sandbox/server/profiles.js";

const notFound = (sessionId?: string): AcpHttpError => {
  const problem = {
    type: "urn:sandbox-agent:error:client_not_found",
    title: "ACP client not found",
    status: 404,
    detail: "unknown ACP client id",
    ...(sessionId === undefined ? {} : { sessionId }),
  };
  return new AcpHttpError("_sandboxagent/session/set_metadata", new Response(JSON.stringify(problem), { status: 404 }), problem, undefined);
};

describe("which 404 ends a v2 connection", () => {
  const gone = V2_PROFILE.isConnectionGone!;

  it("a 404 naming this connection's own id: the connection is gone", () => {
    expect(gone(notFound("conn-1"), "conn-1")).toBe(true);
  });

  it("a 404 naming another id (a session the request named): only that request fails", () => {
    expect(gone(notFound("no-such-session"), "conn-1")).toBe(false);
  });

  it("a 404 that names nothing, or before the connection id is known: the connection is gone", () => {
    expect(gone(notFound(), "conn-1")).toBe(true);
    expect(gone(notFound("no-such-session"), undefined)).toBe(true);
  });

  it("the released server's profile keeps the default (every 404 after bootstrap)", () => {
    expect(V1_PROFILE.isConnectionGone).toBeUndefined();
  });
});
