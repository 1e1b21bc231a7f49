/**
 * The SQLite dialect the storage is fastest on: kysely's `Dialect`, `Driver` and
 * `DatabaseConnection` written for better-sqlite3 (or any driver of its shape), as kysely's own
 * `SqliteDialect` is, plus a per-connection statement cache and rows built from raw arrays.
 * kysely's compiler, adapter and introspector for SQLite are used as they are.
 */
import {
  type Compilable,
  type CompiledQuery,
  createQueryId,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  isCompilable,
  Kysely,
  type QueryCompiler,
  type QueryResult,
  sql,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type TransactionSettings,
} from "kysely";
import type { Database } from "./database.ts";

/**
 * The part of a better-sqlite3 prepared statement the driver uses (declared here: core never
 * imports the driver).
 */
export interface SqliteStatement {
  /** True when the statement returns rows (a select, or a write with `returning`). */
  readonly reader: boolean;
  /** The rows, as arrays of values in column order once {@link raw} is on. */
  all(parameters: readonly unknown[]): unknown[];
  run(parameters: readonly unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  iterate(parameters: readonly unknown[]): IterableIterator<unknown>;
  /** Switches the statement to rows as arrays. */
  raw(toggle?: boolean): unknown;
  /** The result columns of a reader, in order (a repeated name appears as often as it is selected). */
  columns(): Array<{ name: string }>;
}

/** The part of a better-sqlite3 `Database` the driver uses. */
export interface SqliteDatabase {
  prepare(sql: string): SqliteStatement;
  close(): unknown;
}

/** Options of {@link createSqliteDialect}. */
export interface SqliteDialectOptions {
  /** How many prepared statements the connection keeps, least recently used dropped first (default 500). */
  statementCacheSize?: number;
}

const DEFAULT_STATEMENT_CACHE_SIZE = 500;

/**
 * A kysely dialect on the SQLite database `database` (better-sqlite3's `Database`, opened by the
 * host, with the `SQLITE_PRAGMAS` applied): statements are prepared once per SQL text and kept (up to
 * `statementCacheSize`), rows are read as arrays and built into objects in JavaScript, and
 * `db.transaction()` begins with `BEGIN IMMEDIATE` (`BEGIN` when read only), so a transaction
 * that reads and then writes never fails for another process's write in between. Destroying the
 * kysely instance closes the database.
 *
 * @example
 * const sqlite = new Database("events.sqlite");
 * for (const pragma of SQLITE_PRAGMAS) sqlite.pragma(pragma);
 * const storage = createSqlStorage({ db: new Kysely<Database>({ dialect: createSqliteDialect(sqlite) }) });
 */
export function createSqliteDialect(database: SqliteDatabase, options: SqliteDialectOptions = {}): Dialect {
  return new SqliteDialect(database, options);
}

/**
 * A kysely instance on the SQLite database `database` with {@link createSqliteDialect}'s dialect,
 * typed with core's schema unless told otherwise. Its `executeQuery` runs a query at once when no
 * transaction or query holds the connection, instead of through kysely's executor, whose
 * hand-off of the connection (several promise turns) is a good part of a small indexed read;
 * a query that has to wait its turn, and everything else, goes through kysely as usual. Core's
 * precompiled statements call `executeQuery`, so its hot reads take the short way. It has no
 * plugins or logger (`withPlugin` returns a plain kysely instance on the same dialect).
 *
 * @example
 * const sqlite = new Database("events.sqlite");
 * for (const pragma of SQLITE_PRAGMAS) sqlite.pragma(pragma);
 * const storage = createSqlStorage({ db: new SqliteKysely(sqlite) });
 */
export class SqliteKysely<DB = Database> extends Kysely<DB> {
  readonly #driver: SqliteDriver;

  constructor(database: SqliteDatabase, options: SqliteDialectOptions = {}) {
    const dialect = new SqliteDialect(database, options);
    super({ dialect });
    // kysely's constructor has asked the dialect for its driver.
    this.#driver = dialect.driver!;
  }

  override executeQuery<R>(query: CompiledQuery<R> | Compilable<R>): Promise<QueryResult<R>> {
    const compiled = isCompilable(query) ? query.compile() : query;
    try {
      const result = this.#driver.runIfFree<R>(compiled);
      if (result !== undefined) return Promise.resolve(result);
    } catch (error) {
      return Promise.reject(error);
    }
    return super.executeQuery(compiled);
  }
}

class SqliteDialect implements Dialect {
  readonly #database: SqliteDatabase;
  readonly #statementCacheSize: number;
  /** The driver made for the kysely instance (one per instance, made by its constructor). */
  driver: SqliteDriver | undefined;

  constructor(database: SqliteDatabase, options: SqliteDialectOptions) {
    const statementCacheSize = options.statementCacheSize ?? DEFAULT_STATEMENT_CACHE_SIZE;
    if (!Number.isInteger(statementCacheSize) || statementCacheSize < 1)
      throw new RangeError("statementCacheSize must be a positive integer.");
    this.#database = database;
    this.#statementCacheSize = statementCacheSize;
  }

  createDriver(): Driver {
    this.driver = new SqliteDriver(this.#database, this.#statementCacheSize);
    return this.driver;
  }

  createQueryCompiler(): QueryCompiler {
    return new SqliteQueryCompiler();
  }

  createAdapter(): DialectAdapter {
    return new SqliteAdapter();
  }

  createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new SqliteIntrospector(db);
  }
}

/**
 * SQLite has one connection per database handle: it is lent to one user (a query, or a
 * transaction from begin to end) at a time, the others wait in order.
 */
class SqliteDriver implements Driver {
  readonly #database: SqliteDatabase;
  readonly #connection: SqliteConnection;
  readonly #turns: Turns<DatabaseConnection>;

  constructor(database: SqliteDatabase, statementCacheSize: number) {
    this.#database = database;
    this.#connection = new SqliteConnection(database, statementCacheSize);
    this.#turns = new Turns<DatabaseConnection>(this.#connection);
  }

  /**
   * Runs `query` now when nobody holds the connection, as taking and giving back a turn would
   * (the statement runs synchronously, so nothing else can start in between); undefined when a
   * transaction or query holds it, to wait its turn.
   */
  runIfFree<R>(query: CompiledQuery): QueryResult<R> | undefined {
    return this.#turns.busy ? undefined : this.#connection.run<R>(query);
  }

  async init(): Promise<void> {}

  acquireConnection(): Promise<DatabaseConnection> {
    return this.#turns.take();
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    // SQLite's isolation is always serializable; only the lock taken up front can be chosen.
    await connection.executeQuery(rawQuery(settings.accessMode === "read only" ? "begin" : "begin immediate"));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(rawQuery("commit"));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(rawQuery("rollback"));
  }

  async savepoint(
    connection: DatabaseConnection,
    savepointName: string,
    compileQuery: QueryCompiler["compileQuery"],
  ): Promise<void> {
    await connection.executeQuery(
      compileQuery(sql`savepoint ${sql.id(savepointName)}`.toOperationNode(), createQueryId()),
    );
  }

  async rollbackToSavepoint(
    connection: DatabaseConnection,
    savepointName: string,
    compileQuery: QueryCompiler["compileQuery"],
  ): Promise<void> {
    await connection.executeQuery(
      compileQuery(sql`rollback to ${sql.id(savepointName)}`.toOperationNode(), createQueryId()),
    );
  }

  async releaseSavepoint(
    connection: DatabaseConnection,
    savepointName: string,
    compileQuery: QueryCompiler["compileQuery"],
  ): Promise<void> {
    await connection.executeQuery(
      compileQuery(sql`release ${sql.id(savepointName)}`.toOperationNode(), createQueryId()),
    );
  }

  releaseConnection(): Promise<void> {
    this.#turns.pass();
    return DONE;
  }

  async destroy(): Promise<void> {
    this.#database.close();
  }
}

/** A statement without parameters, compiled by hand. */
function rawQuery(text: string): CompiledQuery {
  return { sql: text, parameters: [], query: sql.raw(text).toOperationNode(), queryId: createQueryId() };
}

/** A cached statement; a reader runs in raw mode and keeps the template of its row objects. */
interface Prepared {
  readonly statement: SqliteStatement;
  readonly reader: boolean;
  shape: RowShape | null;
}

/** The column names of a reader's rows and an object with those keys, copied for each row. */
interface RowShape {
  readonly names: readonly string[];
  readonly template: Record<string, unknown>;
}

function rowShape(statement: SqliteStatement): RowShape {
  const names = statement.columns().map((column) => column.name);
  // fromEntries defines each key as an own property (a "__proto__" column included), and a
  // spread copy of it has the same keys in the same order, so each row is built without
  // changing its object's shape key by key.
  return { names, template: Object.fromEntries(names.map((name) => [name, null])) };
}

/**
 * The connection: runs compiled queries on statements prepared once per SQL text. kysely prepares
 * nothing itself, and preparing costs more than running the small indexed queries of the hot path.
 */
class SqliteConnection implements DatabaseConnection {
  readonly #database: SqliteDatabase;
  readonly #statements = new Map<string, Prepared>();
  readonly #max: number;

  constructor(database: SqliteDatabase, max: number) {
    this.#database = database;
    this.#max = max;
  }

  executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    try {
      return Promise.resolve(this.run<R>(compiledQuery));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  async *streamQuery<R>(compiledQuery: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    const prepared = this.#prepared(compiledQuery.sql);
    if (!prepared.reader) throw new Error("SQLite streams only the rows of a query that returns rows.");
    const shape = (prepared.shape ??= rowShape(prepared.statement));
    for (const values of prepared.statement.iterate(compiledQuery.parameters)) {
      yield { rows: [toObject(shape, values as unknown[]) as R] };
    }
  }

  /** Runs the query synchronously (the caller holds the connection's turn, or nobody does). */
  run<R>({ sql: text, parameters }: CompiledQuery): QueryResult<R> {
    const prepared = this.#prepared(text);
    if (!prepared.reader) {
      const { changes, lastInsertRowid } = prepared.statement.run(parameters);
      return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
    }
    const values = prepared.statement.all(parameters) as unknown[][];
    let shape = (prepared.shape ??= rowShape(prepared.statement));
    // SQLite prepares a statement again after a schema change: another process's migration (they
    // only add columns) can widen a `select *`. Its columns are learnt again from the statement.
    if (values.length > 0 && values[0]!.length !== shape.names.length)
      shape = prepared.shape = rowShape(prepared.statement);
    const rows = new Array<R>(values.length);
    for (let i = 0; i < values.length; i += 1) rows[i] = toObject(shape, values[i]!) as R;
    return { rows };
  }

  #prepared(text: string): Prepared {
    let prepared = this.#statements.get(text);
    if (prepared === undefined) {
      const statement = this.#database.prepare(text);
      if (statement.reader) statement.raw(true);
      prepared = { statement, reader: statement.reader, shape: null };
      if (this.#statements.size >= this.#max) this.#statements.delete(this.#statements.keys().next().value!);
    } else {
      // A Map keeps insertion order: moved to the end, the first entry is the least recently used.
      this.#statements.delete(text);
    }
    this.#statements.set(text, prepared);
    return prepared;
  }
}

/** A row's values as an object keyed by its columns; a repeated column name keeps its last value, as better-sqlite3's objects do. */
function toObject(shape: RowShape, values: unknown[]): Record<string, unknown> {
  const row = { ...shape.template };
  const { names } = shape;
  for (let i = 0; i < names.length; i += 1) row[names[i]!] = values[i];
  return row;
}

/** The connection's turns: taken in order of arrival, passed to the next waiting user when released. */
class Turns<C> {
  readonly #free: Promise<C>;
  readonly #connection: C;
  #busy = false;
  readonly #waiting: Array<(connection: C) => void> = [];

  constructor(connection: C) {
    this.#connection = connection;
    this.#free = Promise.resolve(connection);
  }

  /** True while a user holds the connection (and then others may be waiting). */
  get busy(): boolean {
    return this.#busy;
  }

  take(): Promise<C> {
    if (!this.#busy) {
      this.#busy = true;
      return this.#free;
    }
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  pass(): void {
    const next = this.#waiting.shift();
    if (next) next(this.#connection);
    else this.#busy = false;
  }
}

const DONE: Promise<void> = Promise.resolve();
