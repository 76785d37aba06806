import type { NextConfig } from "next";
import createNextIntlPlugin from "next-intl/plugin";

const withNextIntl = createNextIntlPlugin("./lib/i18n/request.ts");

const nextConfig: NextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  serverExternalPackages: [
    "better-sqlite3",
    "pino",
    "@langchain/langgraph-checkpoint-sqlite",
  ],
};

export default withNextIntl(nextConfig);
