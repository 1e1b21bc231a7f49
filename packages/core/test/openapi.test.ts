import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { validate } from "@readme/openapi-parser";
import { docsPage } from "../src/http/docs-page.tsx";
import { createHandler, type FetchHandler } from "../src/http/handler.ts";
import { ROUTES, VENDOR_LINK_ROUTES } from "../src/http/routes.ts";
import { createEventService, type EventService } from "../src/service.ts";
import { ERROR_CODES } from "../src/errors.ts";
import { sqliteStorage } from "./_sqlite.ts";

describe("OpenAPI document and API reference page", () => {
  let service: EventService;
  let handler: FetchHandler;
  let document: any;

  before(async () => {
    service = createEventService({ storage: await sqliteStorage() });
    handler = createHandler(service);
    const response = await handler(new Request("http://service.test/openapi.json"));
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), "application/json; charset=utf-8");
    document = await response.json();
  });
  after(() => service.storage.close());

  test("is a valid OpenAPI 3.1 document", async () => {
    assert.equal(document.openapi, "3.1.0");
    const result = await validate(structuredClone(document));
    assert.equal(result.valid, true, JSON.stringify(result, null, 2));
    assert.deepEqual(result.warnings, []);
  });

  test("covers every route with its parameters, body, success and error responses", () => {
    for (const route of ROUTES) {
      const path = `/v1${route.path.replace(/:(\w+)/g, "{$1}")}`;
      const operation = document.paths[path]?.[route.method.toLowerCase()];
      assert.ok(operation, `${route.method} ${path} missing`);
      assert.equal(operation.operationId, route.operationId);
      const content = operation.responses[String(route.response.status)].content;
      if (route.response.media) {
        // Another format: each media type described; a JSON body besides only for a route that answers JSON too.
        const json = route.response.jsonToo ? ["application/json"] : [];
        assert.deepEqual(Object.keys(content), [...json, ...Object.keys(route.response.media)], route.operationId);
        if (route.response.jsonToo) assert.ok(content["application/json"].schema.$ref);
        for (const type of Object.keys(route.response.media))
          assert.equal(content[type].schema.type, "string", `${route.operationId}: ${type}`);
      } else {
        assert.ok(content["application/json"].schema.$ref);
      }
      for (const code of route.errors)
        assert.ok(operation.responses[String(ERROR_CODES[code].status)], `${route.operationId}: ${code}`);
      for (const status of ["400", "401", "403", "429", "500", "503"])
        assert.ok(operation.responses[status], `${route.operationId}: ${status}`);
      assert.equal(Boolean(operation.requestBody), Boolean(route.body), route.operationId);
      if (route.body)
        for (const status of ["413", "415"]) assert.ok(operation.responses[status], `${route.operationId}: ${status}`);
      const names = operation.parameters.map((p: { name: string }) => p.name);
      assert.equal(names.includes("Idempotency-Key"), route.method === "POST", route.operationId);
    }
    assert.ok(document.paths["/health"].get);
    assert.deepEqual(document.paths["/"].get.security, []);
    assert.deepEqual(Object.keys(document.components.schemas.ServiceIndex.properties), [
      "name",
      "version",
      "docs",
      "openapi",
      "health",
    ]);
    assert.ok(document.paths["/v1/qr/{attendeeId}.{format}"].get);
    // Stripe's notifications: a bad signature, or a verified body that is not a well-formed event.
    const stripe = document.paths["/v1/payments/stripe/webhook"].post;
    assert.match(stripe.responses["400"].description, /`INVALID_REQUEST`.*`INVALID_SIGNATURE`/);
    assert.deepEqual(stripe.requestBody.content["application/json"].schema.required, ["id", "type", "data"]);
  });

  test("query parameters and bodies come from the validating schemas", () => {
    const list = document.paths["/v1/events"].get;
    const params = Object.fromEntries(list.parameters.map((p: { name: string }) => [p.name, p]));
    for (const name of [
      "page",
      "limit",
      "perPage",
      "status",
      "category",
      "startDate",
      "endDate",
      "search",
      "tags",
      "minScore",
      "sortBy",
      "order",
    ]) {
      assert.ok(params[name], name);
    }
    assert.deepEqual(params.status.schema.enum, ["draft", "published", "cancelled", "completed"]);
    assert.deepEqual(params.sortBy.schema.enum, ["createdAt", "startDate", "name", "capacity", "carbonFootprint"]);
    assert.equal(params.limit.schema.maximum, 100);
    const body = document.components.schemas.CreateEventBody;
    assert.deepEqual(body.required.sort(), ["capacity", "category", "endDate", "location", "name", "startDate"]);
    assert.equal(body.additionalProperties, false);
    assert.equal(body.properties.capacity.minimum, 1);
    const event = document.components.schemas.Event;
    for (const field of ["id", "status", "carbonFootprint", "sustainabilityScore", "attendeeCount", "createdAt"])
      assert.ok(event.properties[field], field);
    assert.deepEqual(document.components.schemas.Error.properties.error.properties.code.enum, Object.keys(ERROR_CODES));
  });

  test("every operation that takes a body shows an example its schema accepts, dated ahead", () => {
    const today = new Date().toISOString();
    for (const route of [...ROUTES, ...VENDOR_LINK_ROUTES]) {
      if (!route.body) continue;
      const path = `/v1${route.path.replace(/:(\w+)/g, "{$1}")}`;
      const media = document.paths[path][route.method.toLowerCase()].requestBody.content["application/json"];
      const examples = Object.values(media.examples ?? {}) as Array<{ value: unknown }>;
      assert.equal(examples.length, 1, `${route.operationId}: one example`);
      const result = route.body.safeParse(examples[0]!.value);
      assert.ok(result.success, `${route.operationId}: ${JSON.stringify(result.error?.issues)}`);
      for (const date of JSON.stringify(examples[0]!.value).match(/\d{4}-\d\d-\d\dT[^"]+/g) ?? [])
        assert.ok(new Date(date).toISOString() > today, `${route.operationId}: ${date} is ahead`);
    }
    const event = document.paths["/v1/events"].post.requestBody.content["application/json"].examples.createEvent.value;
    assert.equal(event.location.country, "DE");
    assert.match(event.startDate, /^\d{4}-\d\d-\d\dT09:00:00\+02:00$/);
  });

  test("date-times show their form, not zod's pattern", () => {
    const forms: string[] = [];
    const walk = (node: unknown): void => {
      if (node === null || typeof node !== "object") return;
      const schema = node as Record<string, unknown>;
      if (schema.format === "date-time" || schema.format === "date") {
        assert.equal(schema.pattern, undefined, JSON.stringify(schema));
        forms.push(String((schema.examples as unknown[] | undefined)?.[0]));
      }
      for (const child of Object.values(schema)) walk(child);
    };
    walk(document);
    assert.ok(forms.length > 20, String(forms.length));
    const start = document.components.schemas.CreateEventBody.properties.startDate;
    assert.equal(start.format, "date-time");
    assert.match(start.examples[0], /^\d{4}-\d\d-\d\dT09:00:00\+02:00$/);
    assert.match(start.description, /Z or an offset/);
    assert.match(
      document.components.schemas.Event.properties.startDate.examples[0],
      /^\d{4}-\d\d-\d\dT07:00:00\.000Z$/,
    );
  });

  test("the introduction says how to get a key and send it", () => {
    const intro: string = document.info.description;
    assert.match(intro, /## Getting a key/);
    assert.match(intro, /npx event-service keys create --account "Acme" --tier professional/);
    assert.match(intro, /Authorization: Bearer esk_/);
  });

  test("/docs renders the reference from the package, with an anchor per error code, and loads nothing from elsewhere", async () => {
    const page = await handler(new Request("http://service.test/docs"));
    assert.equal(page.status, 200);
    assert.equal(page.headers.get("content-type"), "text/html; charset=utf-8");
    const csp = page.headers.get("content-security-policy") ?? "";
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /img-src 'self' data:;/);
    assert.match(csp, /connect-src 'self';/);
    assert.match(csp, /script-src 'self' 'sha256-[A-Za-z0-9+/]+={0,2}';/);
    const html = await page.text();
    assert.match(html, /<div id="reference" data-spec="\/openapi.json">/);
    assert.match(html, /<script src="\/docs\/redoc.standalone.js"><\/script>/);
    // The inline script is the one the CSP's hash allows.
    const inline = /<script>([\s\S]*?)<\/script>/.exec(html)![1]!;
    assert.ok(csp.includes(`'sha256-${createHash("sha256").update(inline).digest("base64")}'`));
    assert.doesNotMatch(html, /https?:\/\//);
    for (const code of Object.keys(ERROR_CODES)) assert.match(html, new RegExp(`<tr id="${code}">`));
    const script = await handler(new Request("http://service.test/docs/redoc.standalone.js"));
    assert.equal(script.status, 200);
    assert.equal(script.headers.get("content-type"), "text/javascript; charset=utf-8");
    const source = new TextDecoder().decode(await script.arrayBuffer());
    assert.ok(source.length > 500_000);
    assert.match(source, /Redoc/);
    // The one address Redoc's bundle would load from its vendor (a logo) is not served.
    assert.doesNotMatch(source, /cdn\.redoc\.ly/);
    assert.equal((await handler(new Request("http://service.test/docs/index.html"))).status, 404);
    assert.equal((await handler(new Request("http://service.test/docs/swagger-ui-bundle.js"))).status, 404);
    const off = createHandler(service, { docs: false });
    assert.equal((await off(new Request("http://service.test/docs"))).status, 404);
  });

  test("the /docs page is drawn by the template library: an embedder's base path is an attribute's text", () => {
    const html = docsPage(`/api"><script>alert(1)</script>`);
    assert.ok(html.startsWith('<!doctype html><html lang="en"><head><meta charset="utf-8"/>'));
    assert.ok(html.includes('data-spec="/api&quot;>&lt;script>alert(1)&lt;/script>/openapi.json"'));
    assert.ok(
      html.includes('<script src="/api&quot;>&lt;script>alert(1)&lt;/script>/docs/redoc.standalone.js"></script>'),
    );
    assert.equal((html.match(/<script/g) ?? []).length, 2, "the bundle and the inline script only");
  });
});
