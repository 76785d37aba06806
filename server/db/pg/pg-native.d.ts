// The slice of pg-native (and its libpq handle) the synchronous client uses;
// the package ships no types.
declare module "pg-native" {
  type TypeParsers = { getTypeParser(oid: number, format?: string): (text: string) => unknown };

  class Libpq {
    cmdTuples(): string;
    resultErrorFields(): Record<string, string> | null;
    transactionStatus(): number;
    consumeInput(): boolean;
    notifies(): { relname: string; extra: string; be_pid: number } | undefined;
  }

  class Client {
    constructor(config?: { types?: TypeParsers; arrayMode?: boolean });
    readonly pq: Libpq;
    connectSync(params?: string): void;
    querySync(text: string, values?: unknown[]): Record<string, unknown>[];
    end(cb?: () => void): void;
  }
  export = Client;
}
