/**
 * Drops the database `name` with `query` (a connection of a role that may drop it), terminating
 * its remaining sessions. WITH (FORCE) refuses (42501) while an autovacuum worker is on the
 * database, whose session no role but a superuser may end; a plain DROP cancels autovacuum
 * itself, and waits 5 s for other sessions (55006 after). The end-to-end tests' databases
 * (test/_setup.ts) are dropped by it too.
 */
export async function dropDatabase(query: (statement: string) => Promise<unknown>, name: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await query(`drop database if exists "${name}" with (force)`);
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== "42501" || attempt === 5) throw error;
    }
    try {
      await query(`drop database if exists "${name}"`);
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== "55006") throw error;
    }
  }
}
