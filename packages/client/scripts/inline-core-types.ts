/**
 * Makes the client's built declarations stand alone: every name `dist/*.d.ts` imports or
 * re-exports from `@event-service/core` is written out into `dist/core-types.d.ts` as a plain
 * type (or a `declare`d value), and the declarations import that file instead. Core stays a
 * development dependency: installing the client brings only ofetch, not core's zod, kysely and
 * the rest.
 *
 * Why not a declaration bundler's inlining: core's types are `z.infer<typeof Schema>`, so
 * inlining core's declarations would drag zod's declarations along (and a typed zod with them).
 * The type checker instead resolves each type to the plain shape a response has, which is
 * also what a reader of the client's types wants to see. Runs after `tsup`, on the built core.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const CLIENT = join(dirname(fileURLToPath(import.meta.url)), "..");
const DIST = join(CLIENT, "dist");
const OUT = "core-types";
/** `import { A, B } from '@event-service/core'` and `export { A } from '@event-service/core/webhooks'` as tsup writes them. */
const FROM_CORE = /^(import|export) (?:type )?\{([^}]*)\} from ['"](@event-service\/core(?:\/[\w-]+)?)['"];$/gm;
/** `export * from '@event-service/core/webhooks'`: every name of that entry point, listed by name in the output. */
const ALL_FROM_CORE = /^export \* from ['"](@event-service\/core(?:\/[\w-]+)?)['"];$/gm;

/** The names each core entry point must provide, collected from the built declarations. */
const wanted = new Map<string, Set<string>>();
/** The entry points re-exported whole, with their names once resolved. */
const everything = new Map<string, string[]>();
const files = readdirSync(DIST).filter((file) => file.endsWith(".d.ts") && file !== `${OUT}.d.ts`);
for (const file of files) {
  for (const [, , names, specifier] of readFileSync(join(DIST, file), "utf8").matchAll(FROM_CORE)) {
    const set = wanted.get(specifier!) ?? new Set<string>();
    for (const name of names!.split(","))
      if (name.trim())
        set.add(
          name
            .trim()
            .replace(/^type /, "")
            .split(/ as /)[0]!,
        );
    wanted.set(specifier!, set);
  }
  for (const [, specifier] of readFileSync(join(DIST, file), "utf8").matchAll(ALL_FROM_CORE)) {
    if (!wanted.has(specifier!)) wanted.set(specifier!, new Set());
    everything.set(specifier!, []);
  }
}

// One program whose entry imports every wanted name; core resolves as the client's build sees it.
const ENTRY = join(CLIENT, "__core-types-entry__.ts");
const entryText = [...wanted]
  .map(([specifier], i) => `import * as m${i} from "${specifier}";\nexport { m${i} };`)
  .join("\n");
const options: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  strict: true,
  exactOptionalPropertyTypes: true,
  skipLibCheck: true,
  noEmit: true,
  types: [],
};
const host = ts.createCompilerHost(options);
const readSource = host.getSourceFile.bind(host);
host.getSourceFile = (name, version, ...rest) =>
  name === ENTRY ? ts.createSourceFile(name, entryText, version) : readSource(name, version, ...rest);
const program = ts.createProgram([ENTRY], options, host);
const checker = program.getTypeChecker();
const entry = program.getSourceFile(ENTRY)!;

const printer = ts.createPrinter({ newLine: ts.NewLineKind.LineFeed });
const FLAGS =
  ts.NodeBuilderFlags.NoTruncation |
  ts.NodeBuilderFlags.InTypeAlias |
  ts.NodeBuilderFlags.MultilineObjectLiterals |
  ts.NodeBuilderFlags.UseStructuralFallback |
  ts.NodeBuilderFlags.NoTypeReduction;

function docComment(symbol: ts.Symbol): string {
  const text = ts.displayPartsToString(symbol.getDocumentationComment(checker)).trim();
  return text
    ? `/**\n${text
        .split("\n")
        .map((line) => ` * ${line}`.trimEnd())
        .join("\n")}\n */\n`
    : "";
}

function print(node: ts.Node): string {
  return printer.printNode(ts.EmitHint.Unspecified, node, entry);
}

const declarations = new Map<string, string>();
const queue: { name: string; symbol: ts.Symbol }[] = [];
for (const [i, [specifier, names]] of [...wanted].entries()) {
  const moduleSymbol = checker.getSymbolAtLocation(entry.statements.filter(ts.isImportDeclaration)[i]!.moduleSpecifier);
  if (!moduleSymbol) throw new Error(`cannot resolve ${specifier}: build core first`);
  const exports = checker.getExportsOfModule(moduleSymbol);
  if (everything.has(specifier)) {
    const all = exports.map((symbol) => symbol.name).sort();
    everything.set(specifier, all);
    for (const name of all) names.add(name);
  }
  for (const name of names) {
    const found = exports.find((symbol) => symbol.name === name);
    if (!found) throw new Error(`${specifier} exports no ${name}`);
    queue.push({ name, symbol: found.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(found) : found });
  }
}

while (queue.length > 0) {
  const { name, symbol } = queue.shift()!;
  if (declarations.has(name)) continue;
  const typeAlias = symbol.declarations?.find(ts.isTypeAliasDeclaration);
  const iface = symbol.declarations?.find(ts.isInterfaceDeclaration);
  const copied = typeAlias?.typeParameters
    ? typeAlias
    : (iface ??
      symbol.declarations?.find(
        (d) => ts.isFunctionDeclaration(d) || ts.isVariableDeclaration(d) || ts.isClassDeclaration(d),
      ));
  if (copied && !(symbol.flags & ts.SymbolFlags.TypeAlias && !typeAlias?.typeParameters)) {
    // Generic aliases, interfaces, functions, classes and constants keep core's declaration as written;
    // the names it uses from core come along.
    const statement = ts.isVariableDeclaration(copied) ? copied.parent.parent : copied;
    declarations.set(
      name,
      `${docComment(symbol)}export ${statement
        .getText()
        .replace(/^export\s+/, "")
        .replace(/^declare\s+/, "declare ")}`,
    );
    statement.forEachChild(function visit(node): void {
      if (ts.isTypeReferenceNode(node) && ts.isIdentifier(node.typeName)) {
        const used = checker.getSymbolAtLocation(node.typeName);
        const local = used?.declarations?.some((d) => d.getSourceFile() === statement.getSourceFile()) ?? false;
        if (used && local && !(used.flags & ts.SymbolFlags.TypeParameter))
          queue.push({ name: node.typeName.text, symbol: used });
      }
      node.forEachChild(visit);
    });
  } else if (symbol.flags & (ts.SymbolFlags.TypeAlias | ts.SymbolFlags.Interface)) {
    const node = checker.typeToTypeNode(checker.getDeclaredTypeOfSymbol(symbol), undefined, FLAGS)!;
    declarations.set(name, `${docComment(symbol)}export type ${name} = ${print(node)};`);
  } else {
    throw new Error(`cannot write out ${name} from core`);
  }
}

const banner =
  "// Written by scripts/inline-core-types.ts from @event-service/core's types: the shapes the API sends and takes.\n";
writeFileSync(join(DIST, `${OUT}.d.ts`), `${banner}\n${[...declarations.values()].join("\n\n")}\n`);
for (const file of files) {
  const path = join(DIST, file);
  writeFileSync(
    path,
    readFileSync(path, "utf8")
      .replace(FROM_CORE, (_line, keyword: string, names: string) => `${keyword} {${names}} from './${OUT}.js';`)
      // By name: `export *` of the one file would re-export the other entry points' types too.
      .replace(
        ALL_FROM_CORE,
        (_line, specifier: string) => `export { ${everything.get(specifier)!.join(", ")} } from './${OUT}.js';`,
      ),
  );
}

// The result must type-check on its own: no core, no zod, nothing but TypeScript's own library.
const check = ts.createProgram(
  files.map((file) => join(DIST, file)),
  {
    ...options,
    noEmit: true,
    skipLibCheck: false,
    noResolve: false,
    paths: {},
    typeRoots: [],
    baseUrl: undefined,
  },
);
const problems = ts.getPreEmitDiagnostics(check).filter((d) => !d.file || d.file.fileName.startsWith(DIST));
const leaked = check
  .getSourceFiles()
  .map((file) => file.fileName)
  .filter((name) => /@event-service\/core|\/zod\//.test(name));
if (problems.length > 0 || leaked.length > 0) {
  console.error(ts.formatDiagnosticsWithColorAndContext(problems, ts.createCompilerHost(options)), leaked);
  process.exit(1);
}
console.log(`inline-core-types: ${declarations.size} declarations from core in dist/${OUT}.d.ts`);
