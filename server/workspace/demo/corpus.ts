// Vocabulary for the demo workspace: a handful of believable repositories an
// agent works on, with their files, commands and the kind of tasks people
// give it. Plain facts about fictional projects, nothing copied.

export type Repo = {
  name: string;
  root: string;
  language: "typescript" | "go" | "python" | "terraform";
  files: readonly string[];
  testCommand: string;
  buildCommand: string;
  lintCommand: string;
  packages: readonly string[];
  symbols: readonly string[];
  endpoints: readonly string[];
  titles: readonly string[];
};

/** The files a repository's language tools can read and edit. */
export function sourceFiles(repo: Repo): readonly string[] {
  const ext = { typescript: /\.tsx?$/, go: /\.go$/, python: /\.py$/, terraform: /\.tf$/ }[repo.language];
  return repo.files.filter((f) => ext.test(f));
}

export const REPOS: readonly Repo[] = [
  {
    name: "storefront",
    root: "/workspace/acme/storefront",
    language: "typescript",
    files: [
      "app/(shop)/cart/page.tsx",
      "app/(shop)/checkout/actions.ts",
      "app/api/orders/route.ts",
      "components/cart/cart-drawer.tsx",
      "components/product/price-tag.tsx",
      "lib/money.ts",
      "lib/cart/reducer.ts",
      "lib/cart/reducer.test.ts",
      "lib/analytics/track.ts",
      "server/orders/create-order.ts",
      "server/orders/create-order.test.ts",
      "server/payments/stripe-webhook.ts",
      "server/db/schema.ts",
      "middleware.ts",
      "next.config.ts",
      "package.json",
    ],
    testCommand: "npx vitest run",
    buildCommand: "npm run build",
    lintCommand: "npx eslint . --max-warnings=0",
    packages: ["next", "react", "zod", "drizzle-orm", "stripe", "@tanstack/react-query", "vitest"],
    symbols: ["formatPrice", "cartReducer", "createOrder", "applyCoupon", "useCart", "trackEvent", "verifyWebhookSignature"],
    endpoints: ["https://api.stripe.com/v1/payment_intents", "https://storefront.acme.test/api/orders", "https://registry.npmjs.org/zod"],
    titles: [
      "Flaky test in cart reducer on CI",
      "Make checkout work without JavaScript",
      "Add pagination to the orders endpoint",
      "Handle partial refunds in the Stripe webhook",
      "Remove dead analytics events",
      "Upgrade to the latest minor of the ORM",
      "Fix price rounding for carts over 1,000",
    ],
  },
  {
    name: "billing-api",
    root: "/workspace/acme/billing-api",
    language: "go",
    files: [
      "cmd/billing/main.go",
      "internal/invoice/service.go",
      "internal/invoice/service_test.go",
      "internal/invoice/pdf.go",
      "internal/ledger/postgres.go",
      "internal/ledger/ledger_test.go",
      "internal/httpapi/router.go",
      "internal/httpapi/middleware.go",
      "internal/tax/rates.go",
      "migrations/0042_invoice_lines.sql",
      "go.mod",
      "Makefile",
    ],
    testCommand: "go test ./...",
    buildCommand: "go build ./cmd/billing",
    lintCommand: "golangci-lint run ./...",
    packages: ["github.com/jackc/pgx/v5", "github.com/go-chi/chi/v5", "go.uber.org/zap", "github.com/stretchr/testify"],
    symbols: ["IssueInvoice", "ApplyTax", "LedgerEntry", "RoundHalfEven", "NewRouter", "WithRequestID"],
    endpoints: ["http://localhost:8080/v1/invoices", "https://api.exchangerate.host/latest", "http://localhost:8080/healthz"],
    titles: [
      "Fix rounding error in invoice totals",
      "Add retry with backoff to the ledger writer",
      "Write tests for the tax rate table",
      "Add request ids to every log line",
      "Split the monolithic router into modules",
      "Cache exchange rates for an hour",
    ],
  },
  {
    name: "ml-pipeline",
    root: "/workspace/acme/ml-pipeline",
    language: "python",
    files: [
      "pipeline/features/build.py",
      "pipeline/features/encoders.py",
      "pipeline/train.py",
      "pipeline/evaluate.py",
      "pipeline/io/parquet.py",
      "tests/test_encoders.py",
      "tests/test_train.py",
      "configs/train.yaml",
      "pyproject.toml",
      "Dockerfile",
    ],
    testCommand: "pytest -q",
    buildCommand: "python -m build",
    lintCommand: "ruff check .",
    packages: ["pandas", "pyarrow", "scikit-learn", "numpy", "pydantic", "pytest"],
    symbols: ["build_features", "OneHotEncoder", "train_model", "evaluate", "read_partitioned", "TrainConfig"],
    endpoints: ["https://pypi.org/pypi/pandas/json", "http://mlflow.internal:5000/api/2.0/mlflow/runs/search"],
    titles: [
      "Speed up feature build for large partitions",
      "Investigate memory growth in training",
      "Migrate config loading to typed settings",
      "Fix timezone bug in the daily evaluation report",
      "Pin pyarrow and fix the parquet reader",
    ],
  },
  {
    name: "infra",
    root: "/workspace/acme/infra",
    language: "terraform",
    files: [
      "modules/rds/main.tf",
      "modules/rds/variables.tf",
      "modules/ecs-service/main.tf",
      "envs/prod/main.tf",
      "envs/staging/main.tf",
      ".github/workflows/plan.yml",
      "scripts/rotate-secrets.sh",
      "README.md",
    ],
    testCommand: "terraform validate",
    buildCommand: "terraform plan -out=plan.tfplan",
    lintCommand: "tflint --recursive",
    packages: ["hashicorp/aws", "hashicorp/random", "cloudflare/cloudflare"],
    symbols: ["aws_db_instance", "aws_ecs_service", "aws_security_group", "random_password"],
    endpoints: ["https://registry.terraform.io/v1/providers/hashicorp/aws", "https://api.github.com/repos/acme/infra/pulls"],
    titles: [
      "Rotate database credentials in staging",
      "Bump base image and fix CVE findings",
      "Add a read replica to the prod RDS module",
      "Document the release process",
      "Tighten the ECS security group rules",
    ],
  },
];

export const USER_PROMPTS: readonly string[] = [
  "Can you look into this? CI has been red since this morning.",
  "Please keep the public API unchanged and add tests.",
  "Start by reproducing it locally, then propose a fix.",
  "Don't touch the migrations folder, that's owned by another team.",
  "Use the existing helpers where possible.",
  "When you're done, summarize what changed and why.",
  "Also check whether the same bug exists in the staging config.",
  "The customer report says it only happens for amounts over 1,000.",
];

export const AGENT_REPLIES: readonly string[] = [
  "I reproduced the failure: the test depends on the local timezone. I pinned it to UTC and the suite is green now.",
  "The root cause was an unguarded division when the cart is empty. I added a guard and a regression test.",
  "I split the change into two commits: the refactor first, then the behaviour change, so review is easier.",
  "All checks pass. The only remaining warning comes from a dependency and is unrelated to this change.",
  "I found two more call sites with the same pattern and fixed them too; see the diff summary below.",
  "The upgrade needed one API change in the query builder; everything else compiled unchanged.",
];

export const THINKING: readonly string[] = [
  "The stack trace points at the reducer, but the input comes from the server action. Check both before changing anything.",
  "Running the whole suite takes a while; start with the failing package and widen once it passes.",
  "The diff should stay small. Prefer fixing the helper over patching every caller.",
  "If the rounding happens before tax, totals drift by a cent on some carts. Verify with the fixture from the bug report.",
];

export const AUTHORS = ["ana.silva", "li.wei", "chan.tai-man", "j.doe", "m.garcia"] as const;
