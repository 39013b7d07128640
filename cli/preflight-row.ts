/** A preflight row's verdict. */
export type PreflightStatus = 'pass' | 'warn' | 'fail' | 'unknown';

/** One row of the preflight table. */
export interface PreflightRow {
  readonly id: string;
  readonly status: PreflightStatus;
  readonly detail: string;
  /** What to do when the row is not `pass`. */
  readonly fix?: string;
}
