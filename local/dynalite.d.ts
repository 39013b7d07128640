declare module 'dynalite' {
  import type { Server } from 'node:http';

  interface DynaliteOptions {
    /** Milliseconds a new table stays CREATING. */
    createTableMs?: number;
    /** Milliseconds a deleted table stays DELETING. */
    deleteTableMs?: number;
    updateTableMs?: number;
    /** LevelDB directory; in memory when absent. */
    path?: string;
    maxItemSizeKb?: number;
  }
  /** A DynamoDB API server (HTTP) backed by in-memory LevelDB. */
  function dynalite(options?: DynaliteOptions): Server;
  export default dynalite;
}
