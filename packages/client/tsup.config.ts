import { defineConfig } from "tsup";

export default defineConfig({
  entry: { index: "src/index.ts", webhooks: "src/webhooks.ts" },
  format: ["esm"],
  target: "es2022",
  platform: "neutral",
  // Core is a development dependency, so its receiver helpers are bundled into dist/webhooks.js;
  // its build writes `node:crypto` as "crypto", which stays Node's own.
  external: ["crypto"],
  dts: true,
  clean: true,
  sourcemap: true,
});
