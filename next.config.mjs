import createNextIntlPlugin from "next-intl/plugin";

const withNextIntl = createNextIntlPlugin("./lib/i18n/request.ts");

/** @type {import("next").NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // `npm run typecheck` is the type gate. Scripts that only need a runnable
  // build (demo, the e2e server) set NEXT_SKIP_TYPECHECK=1 so a build does not
  // type-check the whole project a second time on a small machine.
  typescript: { ignoreBuildErrors: process.env.NEXT_SKIP_TYPECHECK === "1" },
  serverExternalPackages: [
    "better-sqlite3",
    "pino",
    "@langchain/langgraph-checkpoint-sqlite",
  ],
};

export default withNextIntl(nextConfig);
