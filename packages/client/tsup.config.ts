import { defineConfig } from "tsup";

export default defineConfig({
  entry: { index: "src/index.ts" },
  format: ["esm"],
  target: "es2022",
  platform: "neutral",
  dts: true,
  clean: true,
  sourcemap: true,
  // The receiver helpers (node:crypto only) are bundled, so ofetch stays the only runtime dependency.
  noExternal: ["@event-service/core/webhooks"],
  external: ["node:crypto", "crypto"],
});
