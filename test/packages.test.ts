/**
 * The three packages are publishable as built: publint finds nothing, each has a version,
 * `exports` with types, `files`, a README and a licence, every `exports` target exists, and
 * `npm pack` would ship only built output and docs. One `npm pack --dry-run` lists what all three
 * would ship, and publint lints those files (left to itself it would pack each package again).
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import { publint } from "publint";
import { ROOT } from "./_setup.ts";

const PACKAGES = ["core", "server", "client"] as const;
const ENGINES = "^20.19.0 || ^22.12.0 || >=24.0.0";
// dist/docs/ also carries the bundled API reference renderer's licences (core, and the server's
// copy for its CLI bundle); dist/cli.js.LICENSE.txt those of the packages bundled into the CLI;
// dist/pages/ the door page's QR decoder (WebAssembly) and the licence of the library bundled in its script.
const SHIPPED =
  /^(dist\/.+\.(js|d\.ts|js\.map)|dist\/cli\.js\.LICENSE\.txt|dist\/docs\/[\w.-]+\.LICENSE(\.txt)?|dist\/pages\/zxing_reader\.wasm|dist\/pages\/zxing-wasm\.LICENSE|bin\/[\w-]+\.js|README\.md|LICENSE|package\.json)$/;

/** What `npm pack` would ship of each workspace package, by name: one npm process for the three. */
let packed: Promise<Map<string, string[]>> | undefined;
const packedFiles = async (name: string): Promise<string[]> => {
  packed ??= promisify(execFile)("npm", ["pack", "--dry-run", "--json", "--ignore-scripts", "--workspaces"], {
    cwd: ROOT,
  }).then(
    ({ stdout }) =>
      new Map(
        (JSON.parse(stdout) as Array<{ name: string; files: Array<{ path: string }> }>).map((entry) => [
          entry.name,
          entry.files.map((file) => file.path),
        ]),
      ),
  );
  const files = (await packed).get(name);
  assert.ok(files, `npm pack lists ${name}`);
  return files;
};

test("the root manifest states the same Node.js versions as the README's support policy", () => {
  assert.equal(JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).engines.node, ENGINES);
  assert.ok(readFileSync(join(ROOT, "README.md"), "utf8").includes(`\`${ENGINES}\``));
});

for (const name of PACKAGES) {
  const dir = join(ROOT, "packages", name);
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));

  test(`@event-service/${name}: manifest, exports and publint`, async () => {
    assert.equal(manifest.name, `@event-service/${name}`);
    assert.match(manifest.version, /^\d+\.\d+\.\d+$/);
    assert.equal(manifest.type, "module");
    assert.equal(manifest.license, "MIT");
    // The support policy (README, "Supported Node.js versions"), the same in every manifest.
    assert.equal(manifest.engines.node, ENGINES);
    assert.ok(manifest.files.includes("dist"));
    assert.ok(existsSync(join(dir, "README.md")) && existsSync(join(dir, "LICENSE")));
    for (const [subpath, target] of Object.entries<Record<string, string> | string>(manifest.exports)) {
      if (subpath === "./package.json") continue;
      assert.equal(typeof target, "object", subpath);
      const { types, default: main } = target as Record<string, string>;
      assert.ok(types && main, `${subpath} has types and default`);
      assert.ok(existsSync(join(dir, types)), `${types} is built`);
      assert.ok(existsSync(join(dir, main)), `${main} is built`);
    }
    const files = await packedFiles(manifest.name);
    const pack = { files: files.map((path) => ({ name: join(dir, path), data: readFileSync(join(dir, path)) })) };
    const { messages } = await publint({ pkgDir: dir, level: "suggestion", pack });
    assert.deepEqual(messages, []);
  });

  test(`@event-service/${name}: npm pack ships only built output and docs`, async () => {
    const files = await packedFiles(manifest.name);
    assert.deepEqual(
      files.filter((path) => !SHIPPED.test(path)),
      [],
    );
    assert.ok(files.includes("dist/index.js") && files.includes("dist/index.d.ts"));
    if (name === "core") {
      for (const file of [
        "dist/docs/redoc.standalone.js",
        "dist/docs/redoc.standalone.js.LICENSE.txt",
        "dist/docs/redoc.LICENSE",
        "dist/pages/door.js",
        "dist/pages/sw.js",
        "dist/pages/zxing_reader.wasm",
        "dist/pages/zxing-wasm.LICENSE",
      ])
        assert.ok(files.includes(file), file);
    }
  });
}
