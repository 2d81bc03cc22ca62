import postgres from 'postgres';

export type Sql = postgres.Sql<Record<string, never>>;

/** One pool per process; numeric/bigint columns come back as JS numbers where safe. */
export function connect(url: string, max = Number(process.env.WAYMARK_DB_POOL ?? 10)): Sql {
  return postgres(url, {
    max,
    idle_timeout: 30,
    onnotice: () => {},
    types: {
      bigint: postgres.BigInt,
    },
    transform: { undefined: null },
  }) as unknown as Sql;
}
