/** A scripted fetch for the client's unit tests: answers from a list, records what it was sent. */

/** A request as the scripted fetch received it. */
export interface Sent {
  method: string;
  url: string;
  headers: Headers;
  body: string | null;
}

/** A fetch that answers from a script, one answer per call, and records what it was sent. */
export function scripted(answers: Array<() => Response>) {
  const sent: Sent[] = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    sent.push({
      method: request.method,
      url: request.url,
      headers: request.headers,
      body: request.body ? await request.text() : null,
    });
    const next = answers.shift();
    if (!next) throw new Error("no answer left in the script");
    return next();
  };
  return { fetch: fetch as typeof globalThis.fetch, sent };
}

/** An answer with a JSON body. */
export const json =
  (status: number, body: unknown, headers: Record<string, string> = {}) =>
  () =>
    new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });
/** An error answer with the service's error body. */
export const failure = (
  status: number,
  code: string,
  headers: Record<string, string> = {},
  extra: Record<string, unknown> = {},
) => json(status, { error: { code, message: `${code} happened`, ...extra } }, headers);
