/**
 * The one-time move of a split read store's side state (SplitReadStore) out of a main file written
 * before the split. The side file records that the move was made (table `side_store_origin`), and
 * every opener checks it under the side file's write lock: two processes opening at once move the
 * state once, and neither reads the side file before the move is complete.
 */
import { openSqlite, type SqliteDatabase } from './open';

const ORIGIN_TABLE = `CREATE TABLE IF NOT EXISTS side_store_origin (
  moved_at TEXT NOT NULL,
  documents INTEGER NOT NULL,
  checkpoints INTEGER NOT NULL
)`;

export interface MovedState {
  documents: number;
  checkpoints: number;
}

/** Moves what `sideOwns` names from `mainFile` into `sideFile`, unless that was done; null then. */
export function moveToSideStore(
  mainFile: string,
  sideFile: string,
  sideOwns: (name: string) => boolean,
): MovedState | null {
  const db = openSqlite(sideFile, 'derived', 2);
  try {
    db.exec(ORIGIN_TABLE);
    // Attached outside any transaction (SQLite refuses ATTACH and DETACH inside one).
    db.prepare('ATTACH DATABASE ? AS before_split').run(mainFile);
    db.exec('BEGIN IMMEDIATE');
    try {
      if (db.prepare('SELECT 1 FROM side_store_origin').get()) {
        db.exec('ROLLBACK');
        return null;
      }
      const collections = names(
        db,
        'SELECT DISTINCT collection AS name FROM before_split.documents',
        sideOwns,
      );
      const checkpoints = names(db, 'SELECT projector AS name FROM before_split.checkpoints', sideOwns);
      let documents = 0;
      const copyDocuments = db.prepare(
        'INSERT OR IGNORE INTO main.documents SELECT * FROM before_split.documents WHERE collection = ?',
      );
      for (const name of collections) documents += copyDocuments.run(name).changes;
      const copyCheckpoint = db.prepare(
        'INSERT OR IGNORE INTO main.checkpoints SELECT * FROM before_split.checkpoints WHERE projector = ?',
      );
      for (const name of checkpoints) copyCheckpoint.run(name);
      db.prepare('INSERT INTO side_store_origin VALUES (?, ?, ?)').run(
        new Date().toISOString(),
        documents,
        checkpoints.length,
      );
      db.exec('COMMIT');
      // Now only the side file is read for these: the main file's copies go (if this is cut short,
      // they stay unread).
      db.transaction(() => {
        for (const name of collections)
          db.prepare('DELETE FROM before_split.documents WHERE collection = ?').run(name);
        for (const name of checkpoints)
          db.prepare('DELETE FROM before_split.checkpoints WHERE projector = ?').run(name);
      })();
      return { documents, checkpoints: checkpoints.length };
    } catch (error) {
      if (db.inTransaction) db.exec('ROLLBACK');
      throw error;
    }
  } finally {
    db.close();
  }
}

function names(db: SqliteDatabase, sql: string, sideOwns: (name: string) => boolean): string[] {
  return (db.prepare(sql).all() as Array<{ name: string }>).map((row) => row.name).filter(sideOwns);
}
