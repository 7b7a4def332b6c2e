export interface CliIo {
  env: Record<string, string | undefined>;
  out(line: string): void;
  err(line: string): void;
  /** raw output (the export's CSV), resolved once it may be written again; default: out */
  write?(chunk: string): Promise<void> | void;
  /** a progress line for a terminal (given only when stderr is one) */
  progress?(text: string): void;
}
