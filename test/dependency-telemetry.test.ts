/**
 * Installing or running a published package reports nothing to anyone: the installed
 * dependency tree of core, server and client (their production dependencies, transitively, as
 * npm laid them out in node_modules) holds none of the known telemetry packages.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { ROOT } from "./_setup.ts";

/** Packages documented as reporting installs or usage to a third party, and why each is here. */
const TELEMETRY = new Map([
  // A postinstall script that reports every install (package, version, platform) to scarf.sh;
  // swagger-ui-dist, swagger-client and @stoplight/elements depend on it.
  ["@scarf/scarf", "install-time analytics (postinstall)"],
  // Redoc 3's "unified Redoc analytics library"; the reason /docs uses Redoc 2, bundled.
  ["@redocly/redoc-opentelemetry", "run-time analytics of Redoc"],
  // Redocly CLI's usage telemetry.
  ["@redocly/cli-otel", "run-time telemetry of Redocly's CLI"],
  // "Event and metric tracking across Scalar", in @scalar/api-reference's tree via its API client.
  ["@scalar/analytics-client", "run-time analytics of Scalar"],
  // Yeoman's usage reporting to Google Analytics, used by older CLIs.
  ["insight", "run-time usage reporting to Google Analytics"],
  // Nuxt's anonymous usage telemetry.
  ["@nuxt/telemetry", "run-time usage telemetry of Nuxt"],
  // Product-analytics SDKs: a dependency shipping one reports its users' usage.
  ["posthog-node", "run-time product analytics (PostHog)"],
  ["@segment/analytics-node", "run-time product analytics (Segment)"],
  ["analytics-node", "run-time product analytics (Segment, legacy)"],
]);

const PUBLISHED = ["core", "server", "client"] as const;

interface Installed {
  name: string;
  version: string;
  /** The chain of packages that pulled it in. */
  via: string[];
}

/** The folder npm installed `name` in for a package at `from`: the nearest `node_modules/<name>` upward, as Node resolves. */
function installedDir(name: string, from: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return realpathSync(candidate);
    if (dirname(dir) === dir) return undefined;
  }
}

/**
 * Every package installed for `dir`'s production dependencies, transitively: `dependencies`,
 * `optionalDependencies` (when installed) and non-optional `peerDependencies` (npm installs
 * those too).
 */
function installedTree(dir: string): Installed[] {
  const found = new Map<string, Installed>();
  const visit = (packageDir: string, via: string[]) => {
    const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8"));
    const optional = new Set(Object.keys(manifest.optionalDependencies ?? {}));
    const peersOptional = new Set(
      Object.entries<{ optional?: boolean }>(manifest.peerDependenciesMeta ?? {})
        .filter(([, meta]) => meta.optional)
        .map(([name]) => name),
    );
    const names = new Set([
      ...Object.keys(manifest.dependencies ?? {}),
      ...optional,
      ...Object.keys(manifest.peerDependencies ?? {}).filter((name) => !peersOptional.has(name)),
    ]);
    for (const name of names) {
      const child = installedDir(name, packageDir);
      if (!child) {
        if (optional.has(name)) continue;
        throw new Error(`${[...via, manifest.name].join(" > ")} needs ${name}, which is not installed`);
      }
      if (found.has(child)) continue;
      const { version } = JSON.parse(readFileSync(join(child, "package.json"), "utf8"));
      found.set(child, { name, version, via: [...via, manifest.name] });
      visit(child, [...via, manifest.name]);
    }
  };
  visit(realpathSync(dir), []);
  return [...found.values()];
}

for (const name of PUBLISHED) {
  test(`@event-service/${name}: no telemetry package in its installed dependency tree`, () => {
    const tree = installedTree(join(ROOT, "packages", name));
    const flagged = tree
      .filter((entry) => TELEMETRY.has(entry.name))
      .map((entry) => `${entry.name}@${entry.version} (${TELEMETRY.get(entry.name)}) via ${entry.via.join(" > ")}`);
    assert.deepEqual(flagged, []);
    const names = new Set(tree.map((entry) => entry.name));
    // The walk reaches what it should, so an empty finding means something.
    if (name === "client") assert.ok(names.has("ofetch"));
    else assert.ok(names.has("zod") && names.has("kysely"), [...names].join(", "));
    if (name === "server") assert.ok(names.has("@event-service/core") && names.has("h3"));
    // The docs renderer ships inside core: none of its own dependencies reach users.
    for (const renderer of ["swagger-ui-dist", "redoc", "react", "@scalar/api-reference"])
      assert.ok(!names.has(renderer), renderer);
  });
}

test("the walk finds a telemetry package deep in a tree, hoisted or nested", () => {
  const root = mkdtempSync(join(tmpdir(), "telemetry-walk-"));
  const write = (dir: string, manifest: Record<string, unknown>) => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "package.json"), JSON.stringify({ version: "1.0.0", ...manifest }));
  };
  try {
    write(join(root, "app"), {
      name: "app",
      dependencies: { "docs-ui": "1" },
      optionalDependencies: { "not-installed": "1" },
    });
    write(join(root, "node_modules/docs-ui"), {
      name: "docs-ui",
      dependencies: { helper: "1" },
      peerDependencies: { "peer-lib": "1" },
    });
    write(join(root, "node_modules/docs-ui/node_modules/helper"), {
      name: "helper",
      dependencies: { "@scarf/scarf": "1" },
    });
    write(join(root, "node_modules/@scarf/scarf"), { name: "@scarf/scarf", version: "1.4.0" });
    write(join(root, "node_modules/peer-lib"), { name: "peer-lib", dependencies: { "posthog-node": "4" } });
    write(join(root, "node_modules/posthog-node"), { name: "posthog-node", version: "4.0.0" });
    const tree = installedTree(join(root, "app"));
    assert.deepEqual(tree.map((entry) => `${entry.name}@${entry.version} via ${entry.via.join(" > ")}`).sort(), [
      "@scarf/scarf@1.4.0 via app > docs-ui > helper",
      "docs-ui@1.0.0 via app",
      "helper@1.0.0 via app > docs-ui",
      "peer-lib@1.0.0 via app > docs-ui",
      "posthog-node@4.0.0 via app > docs-ui > peer-lib",
    ]);
    assert.deepEqual(
      tree
        .filter((entry) => TELEMETRY.has(entry.name))
        .map((entry) => entry.name)
        .sort(),
      ["@scarf/scarf", "posthog-node"],
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
