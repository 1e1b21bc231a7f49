import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createHandler, type FetchHandler } from "../src/http/handler.ts";
import { ROUTES } from "../src/http/routes.ts";
import { type Scope, SCOPES } from "../src/resources/api-key.ts";
import { createEventService, type EventService } from "../src/service.ts";
import { sqliteStorage } from "./_sqlite.ts";

describe("the web-standard handler, without a server", () => {
  let service: EventService;
  let handler: FetchHandler;
  let key: string;
  let readOnly: string;
  const errors: unknown[] = [];

  before(async () => {
    service = createEventService({ storage: await sqliteStorage(), now: () => new Date("2026-06-01T12:00:00.000Z") });
    // The documented opt-in for a host whose front end has checked Host: links follow the request's URL.
    handler = createHandler(service, {
      onError: (error) => errors.push(error),
      linkOrigin: (request) => new URL(request.url).origin,
    });
    key = (await service.keys.create({ account: "Acme", tier: "starter" })).key;
    readOnly = (await service.keys.create({ account: "Acme", scopes: ["events:read"] })).key;
  });
  after(() => service.storage.close());

  const call = (
    method: string,
    path: string,
    init: { key?: string; body?: string; type?: string; headers?: Record<string, string> } = {},
  ) =>
    handler(
      new Request(`http://service.test${path}`, {
        method,
        headers: {
          ...(init.key && { authorization: `Bearer ${init.key}` }),
          ...(init.body !== undefined && { "content-type": init.type ?? "application/json" }),
          ...init.headers,
        },
        ...(init.body !== undefined && { body: init.body }),
      }),
    );

  test("health, and JSON 404s for unknown routes", async () => {
    const health = await call("GET", "/health");
    assert.equal(health.status, 200);
    assert.deepEqual(await health.json(), { status: "ok" });
    const missing = await call("GET", "/v2/events", { key });
    assert.equal(missing.status, 404);
    assert.equal(missing.headers.get("content-type"), "application/json; charset=utf-8");
    assert.deepEqual(await missing.json(), {
      error: {
        code: "NOT_FOUND",
        message: "No route for GET /v2/events.",
        documentation: "http://service.test/docs#NOT_FOUND",
      },
    });
  });

  test("authentication and scopes", async () => {
    assert.equal((await call("GET", "/v1/events")).status, 401);
    assert.equal((await call("GET", "/v1/events", { headers: { authorization: "Basic abc" } })).status, 401);
    assert.equal((await call("GET", "/v1/events", { key: "esk_nope" })).status, 401);
    assert.equal((await call("GET", "/api/events", { key: readOnly })).status, 200);
    const forbidden = await call("POST", "/api/events", { key: readOnly, body: "{}" });
    assert.equal(forbidden.status, 403);
    assert.deepEqual((await forbidden.json()).error.details, { requiredScope: "events:write" });
  });

  test("bodies: media type, size, syntax", async () => {
    const wrongType = await call("POST", "/v1/events", {
      key,
      body: "name=x",
      type: "application/x-www-form-urlencoded",
    });
    assert.equal(wrongType.status, 415);
    assert.equal((await wrongType.json()).error.code, "UNSUPPORTED_MEDIA_TYPE");
    const malformed = await call("POST", "/v1/events", { key, body: '{"name":' });
    assert.equal(malformed.status, 400);
    assert.match((await malformed.json()).error.message, /^body: malformed JSON/);
    const huge = await call("POST", "/v1/events", { key, body: JSON.stringify({ name: "x".repeat(1024 * 1024) }) });
    assert.equal(huge.status, 413);
    assert.equal((await huge.json()).error.code, "PAYLOAD_TOO_LARGE");
    const array = await call("POST", "/v1/attendees", { key, body: "[]" });
    assert.equal(array.status, 400);
  });

  test("a full round trip with the pinned clock and public QR image", async () => {
    const created = await call("POST", "/v1/events", {
      key,
      body: JSON.stringify({
        name: "Green Summit",
        location: { address: "a", city: "Berlin", country: "DE" },
        startDate: "2038-01-01T10:00:00Z",
        endDate: "2038-01-01T12:00:00Z",
        capacity: 5,
        category: "meetup",
      }),
    });
    assert.equal(created.status, 201);
    const event = await created.json();
    assert.equal(event.createdAt, "2026-06-01T12:00:00.000Z");
    assert.equal(event.status, "draft");
    const registered = await call("POST", "/api/attendees", {
      key,
      body: JSON.stringify({
        eventId: event.id,
        firstName: "Ada",
        lastName: "L",
        email: "ada@example.com",
        ticketType: "vip",
      }),
    });
    assert.equal(registered.status, 201);
    const attendee = await registered.json();
    assert.equal(attendee.qrCode, `http://service.test/v1/qr/${attendee.id}.png`);
    const png = await call("GET", `/v1/qr/${attendee.id}.png`);
    assert.equal(png.headers.get("content-type"), "image/png");
    assert.deepEqual([...new Uint8Array(await png.arrayBuffer()).slice(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
    const svg = await call("GET", `/api/qr/${attendee.id}.svg`);
    assert.equal(svg.headers.get("content-type"), "image/svg+xml");
    assert.match(await svg.text(), /^<svg /);
    assert.equal((await call("GET", "/v1/qr/att_unknown.png")).status, 404);
    const extra = await call("GET", `/v1/events/${event.id}?expand=all`, { key });
    assert.equal(extra.status, 400);
    assert.equal((await extra.json()).error.field, "expand");
  });

  test("a publicUrl wins over the request's origin", async () => {
    const pinned = createEventService({ storage: service.storage, publicUrl: "https://events.example.com/" });
    const scope = pinned.forAccount((await service.keys.authenticate(key))!.accountId, {
      baseUrl: "http://ignored.test",
    });
    const event = await scope.events.create({
      name: "E",
      location: { address: "a", city: "b", country: "FR" },
      startDate: "2038-01-01T10:00:00Z",
      endDate: "2038-01-01T12:00:00Z",
      capacity: 1,
      category: "c",
    });
    const attendee = await scope.attendees.register({
      eventId: event.id,
      firstName: "A",
      lastName: "B",
      email: "a@b.fr",
      ticketType: "t",
    });
    assert.equal(attendee.qrCode, `https://events.example.com/v1/qr/${attendee.id}.png`);
  });

  test("health answers 503 with Retry-After once the store is gone", async () => {
    const closed = createEventService({ storage: await sqliteStorage() });
    await closed.storage.close();
    const response = await createHandler(closed)(new Request("http://service.test/health"));
    assert.equal(response.status, 503);
    assert.equal(response.headers.get("retry-after"), "5");
    assert.equal((await response.json()).error.code, "SERVICE_UNAVAILABLE");
  });

  test("no unexpected errors were logged", () => assert.deepEqual(errors, []));
});

describe("a handler mounted under a base path", () => {
  let service: EventService;
  let handler: FetchHandler;
  let key: string;

  before(async () => {
    service = createEventService({ storage: await sqliteStorage() });
    handler = createHandler(service, { basePath: "/events-api/", linkOrigin: "http://host.test" });
    key = (await service.keys.create({ account: "Mounted" })).key;
  });
  after(() => service.storage.close());

  const get = (path: string) =>
    handler(new Request(`http://host.test${path}`, { headers: { authorization: `Bearer ${key}` } }));

  test("serves its routes below the base path only", async () => {
    assert.equal((await get("/events-api/health")).status, 200);
    assert.equal((await get("/events-api/v1/events")).status, 200);
    assert.equal((await get("/events-api/api/events?limit=1")).status, 200);
    for (const outside of ["/health", "/v1/events", "/events-apiv1/events", "/events-api-2/health"]) {
      const response = await get(outside);
      assert.equal(response.status, 404, outside);
      assert.equal((await response.json()).error.code, "NOT_FOUND");
    }
  });

  test("links it hands out include the base path: QR codes, documentation, the reference page's assets", async () => {
    const create = await handler(
      new Request("http://host.test/events-api/v1/events", {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({
          name: "Mounted",
          location: { address: "Main St 1", city: "Berlin", country: "DE" },
          startDate: "2038-01-01T10:00:00Z",
          endDate: "2038-01-01T12:00:00Z",
          capacity: 5,
          category: "meetup",
        }),
      }),
    );
    const event = await create.json();
    const register = await handler(
      new Request("http://host.test/events-api/v1/attendees", {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({
          eventId: event.id,
          firstName: "Ada",
          lastName: "Lovelace",
          email: "ada@example.com",
          ticketType: "general",
        }),
      }),
    );
    const attendee = await register.json();
    assert.equal(attendee.qrCode, `http://host.test/events-api/v1/qr/${attendee.id}.png`);
    const image = await get(`/events-api/v1/qr/${attendee.id}.png`);
    assert.equal(image.status, 200);
    assert.equal(image.headers.get("content-type"), "image/png");
    const missing = await (await get("/events-api/v1/events/evt_nope")).json();
    assert.equal(missing.error.documentation, "http://host.test/events-api/docs#NOT_FOUND");
    const page = await (await get("/events-api/docs")).text();
    assert.match(page, /src="\/events-api\/docs\/redoc\.standalone\.js"/);
    assert.match(page, /data-spec="\/events-api\/openapi\.json"/);
    assert.equal((await get("/events-api/docs/redoc.standalone.js")).status, 200);
  });
});

describe("operations that take no body", () => {
  let service: EventService;
  let handler: FetchHandler;
  let key: string;
  let sent = 0;

  before(async () => {
    const fetch = (async () => {
      sent += 1;
      return new Response("ok");
    }) as typeof globalThis.fetch;
    service = createEventService({ storage: await sqliteStorage(), webhooks: { allowPrivateNetworks: true, fetch } });
    handler = createHandler(service);
    key = (await service.keys.create({ account: "No bodies", tier: "enterprise" })).key;
  });
  after(() => service.storage.close());

  const call = (method: string, path: string, body?: string, type = "application/json") =>
    handler(
      new Request(`http://service.test${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body !== undefined && { "content-type": type }) },
        ...(body !== undefined && { body }),
      }),
    );
  /** Every route without a body schema that a body can reach, on ids that name nothing: past the body check it is 404. */
  const NO_BODY_ROUTES = ROUTES.filter((route) => !route.body && route.method !== "GET");
  const unknown = (route: (typeof ROUTES)[number]) => `/v1${route.path.replace(/:(\w+)/g, "nothing_$1")}`;

  test("the routes without a body are the POSTs ping, rotate-secret, rotate-link, ticket-link, redeliver and every DELETE", () => {
    assert.deepEqual(NO_BODY_ROUTES.map((route) => `${route.method} ${route.path}`).sort(), [
      "DELETE /attendees/:id",
      "DELETE /events/:id",
      "DELETE /events/:id/activities/:activityId",
      "DELETE /events/:id/check-in-links/:linkId",
      "DELETE /events/:id/check-in/:attendeeId",
      "DELETE /thresholds/:id",
      "DELETE /vendors/:id",
      "DELETE /webhooks/:id",
      "POST /attendees/:id/ticket-link",
      "POST /events/:id/vendors/:bookingId/rotate-link",
      "POST /webhooks/:id/deliveries/:deliveryId/redeliver",
      "POST /webhooks/:id/ping",
      "POST /webhooks/:id/rotate-secret",
    ]);
  });

  test("no body, an empty one, only whitespace or {} (whatever the Content-Type) pass; any other is 400 INVALID_REQUEST", async () => {
    const empty: Array<[string | undefined, string?]> = [
      [undefined],
      [""],
      ["  \r\n\t"],
      ["{}"],
      [" { \n } \n"],
      ["{}", "text/plain"],
      ["", "application/x-www-form-urlencoded"],
      // A byte order mark is dropped, as it is before any JSON body is parsed.
      ["\ufeff{}"],
    ];
    const refused: Array<[string, string?]> = [
      ['{"x":1}'],
      ["[]"],
      ["null"],
      ["0"],
      ['""'],
      ["{}{}"],
      ["{"],
      ["x=1", "application/x-www-form-urlencoded"],
      ["hello", "text/plain"],
      ['{"": null}'],
      ["{\u00a0}"],
      ["\ufeff\ufeff{}"],
    ];
    for (const route of NO_BODY_ROUTES) {
      const path = unknown(route);
      for (const [body, type] of empty) {
        const answer = await call(route.method, path, body, type);
        assert.equal(answer.status, 404, `${route.method} ${route.path} with ${JSON.stringify(body)}`);
      }
      for (const [body, type] of refused) {
        const answer = await call(route.method, path, body, type);
        assert.equal(answer.status, 400, `${route.method} ${route.path} with ${JSON.stringify(body)}`);
        assert.deepEqual((await answer.json()).error, {
          code: "INVALID_REQUEST",
          message: "body: this operation takes no body (send none, or {})",
          documentation: "http://localhost:3000/docs#INVALID_REQUEST",
        });
      }
    }
  });

  test("a ping or a rotation with a body does nothing; with {} it runs", async () => {
    const account = service.forAccount((await service.keys.list("No bodies"))[0]!.accountId);
    const hook = await account.webhooks.create({ url: "https://127.0.0.1:8443/in", events: ["*"] });
    assert.equal((await call("POST", `/v1/webhooks/${hook.id}/ping`, '{"x":1}')).status, 400);
    assert.equal((await call("POST", `/v1/webhooks/${hook.id}/rotate-secret`, '{"secret":"whsec_mine"}')).status, 400);
    assert.deepEqual([sent, (await account.webhooks.deliveries(hook.id)).pagination.total], [0, 0]);
    const ping = await call("POST", `/v1/webhooks/${hook.id}/ping`, "{}");
    assert.deepEqual([ping.status, (await ping.json()).attempts[0].statusCode, sent], [200, 200, 1]);
    const rotated = await call("POST", `/v1/webhooks/${hook.id}/rotate-secret`);
    assert.equal(rotated.status, 200);
    assert.notEqual((await rotated.json()).secret, hook.secret);
  });
});

describe("scopes: a :write includes its :read, a read-only key never writes", () => {
  let service: EventService;
  let handler: FetchHandler;
  const keys = new Map<Scope, string>();

  before(async () => {
    service = createEventService({ storage: await sqliteStorage() });
    handler = createHandler(service);
    for (const scope of SCOPES)
      keys.set(scope, (await service.keys.create({ account: "Scoped", tier: "enterprise", scopes: [scope] })).key);
  });
  after(() => service.storage.close());

  test("every route answers a one-scope key 403 unless that scope is the route's (or its alternative's), or the :write of such a :read", async () => {
    for (const route of ROUTES) {
      const path = `/v1${route.path.replace(/:(\w+)/g, "nothing_$1")}`;
      for (const [scope, key] of keys) {
        const answer = await handler(
          new Request(`http://service.test${path}`, {
            method: route.method,
            headers: { authorization: `Bearer ${key}` },
          }),
        );
        const grants = (needed: string | undefined) =>
          needed !== undefined &&
          (scope === needed || (needed.endsWith(":read") && scope === needed.replace(":read", ":write")));
        const granted = grants(route.scope) || grants(route.orScope);
        const what = `${route.method} ${route.path} with ${scope}`;
        if (granted) {
          assert.notEqual(answer.status, 403, what);
          continue;
        }
        assert.equal(answer.status, 403, what);
        const { error } = await answer.json();
        assert.deepEqual(error.details, { requiredScope: route.scope }, what);
        const granting = (needed: string) =>
          needed.endsWith(":read") && needed !== "analytics:read"
            ? `${needed} or the ${needed.replace(":read", ":write")}`
            : needed;
        const all = [route.scope, ...(route.orScope ? [route.orScope] : [])].map(granting).join(" or the ");
        assert.equal(error.message, `This API key lacks the ${all} scope.`, what);
      }
    }
  });

  test("the keys keep their scopes as given", async () => {
    const listed = await service.keys.list("Scoped");
    assert.deepEqual(listed.map((key) => key.scopes).sort(), SCOPES.map((scope) => [scope]).sort());
  });
});

describe("the links a handler hands out: never from the request's Host", () => {
  let service: EventService;
  let key: string;
  let eventId: string;

  before(async () => {
    service = createEventService({ storage: await sqliteStorage() });
    key = (await service.keys.create({ account: "Linked" })).key;
    const scope = service.forAccount((await service.keys.authenticate(key))!.accountId);
    eventId = (
      await scope.events.create({
        name: "Links",
        location: { address: "a", city: "b", country: "FR" },
        startDate: "2038-01-01T10:00:00Z",
        endDate: "2038-01-01T12:00:00Z",
        capacity: 10,
        category: "c",
      })
    ).id;
  });
  after(() => service.storage.close());

  let n = 0;
  /** A registration through `handler` at `url`, and an error body's documentation link from the same origin. */
  async function links(handler: FetchHandler, url: string, headers: Record<string, string> = {}) {
    const registered = await handler(
      new Request(`${url}/v1/attendees`, {
        method: "POST",
        headers: { ...headers, authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({
          eventId,
          firstName: "A",
          lastName: "B",
          email: `links${n++}@example.com`,
          ticketType: "t",
        }),
      }),
    );
    assert.equal(registered.status, 201);
    const attendee = await registered.json();
    const missing = await (await handler(new Request(`${url}/v1/nope`, { headers }))).json();
    return { qrCode: attendee.qrCode.replace(attendee.id, "ID"), documentation: missing.error.documentation };
  }

  test("without publicUrl or linkOrigin: http://localhost:3000, whatever the Host", async () => {
    assert.deepEqual(await links(createHandler(service), "http://evil.example:666"), {
      qrCode: "http://localhost:3000/v1/qr/ID.png",
      documentation: "http://localhost:3000/docs#NOT_FOUND",
    });
  });

  test("linkOrigin gives the origin (the base path added); the service's publicUrl wins over it", async () => {
    assert.deepEqual(
      await links(createHandler(service, { linkOrigin: "https://api.example.com/" }), "http://evil.example"),
      {
        qrCode: "https://api.example.com/v1/qr/ID.png",
        documentation: "https://api.example.com/docs#NOT_FOUND",
      },
    );
    assert.deepEqual(
      await links(
        createHandler(service, { linkOrigin: "https://api.example.com", basePath: "/ev" }),
        "http://evil.example/ev",
      ),
      {
        qrCode: "https://api.example.com/ev/v1/qr/ID.png",
        documentation: "https://api.example.com/ev/docs#NOT_FOUND",
      },
    );
    const pinned = createEventService({ storage: service.storage, publicUrl: "https://events.example.com/mounted/" });
    assert.deepEqual(
      await links(
        createHandler(pinned, { linkOrigin: "https://api.example.com", basePath: "/mounted" }),
        "http://evil.example/mounted",
      ),
      {
        qrCode: "https://events.example.com/mounted/v1/qr/ID.png",
        documentation: "https://events.example.com/mounted/docs#NOT_FOUND",
      },
    );
  });

  test("a trusted proxy's X-Forwarded-Host (and -Proto) count; a malformed one, or an untrusted peer's, does not", async () => {
    const proxied = createHandler(service, { trustProxy: true, linkOrigin: "http://127.0.0.1:3000" });
    assert.deepEqual(
      await links(proxied, "http://internal", {
        "x-forwarded-proto": "https",
        "x-forwarded-host": "events.example.com",
      }),
      {
        qrCode: "https://events.example.com/v1/qr/ID.png",
        documentation: "https://events.example.com/docs#NOT_FOUND",
      },
    );
    for (const host of ["evil.example/phish", "user@evil.example", "evil.example:99999"]) {
      assert.deepEqual(
        await links(proxied, "http://internal", { "x-forwarded-host": host }),
        {
          qrCode: "http://127.0.0.1:3000/v1/qr/ID.png",
          documentation: "http://127.0.0.1:3000/docs#NOT_FOUND",
        },
        host,
      );
    }
    const direct = createHandler(service, { linkOrigin: "http://127.0.0.1:3000" });
    assert.deepEqual(
      await links(direct, "http://evil.example", { "x-forwarded-proto": "https", "x-forwarded-host": "evil.example" }),
      {
        qrCode: "http://127.0.0.1:3000/v1/qr/ID.png",
        documentation: "http://127.0.0.1:3000/docs#NOT_FOUND",
      },
    );
  });
});
