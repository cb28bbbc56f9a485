package main

// Tool results agents read during a loop. They are full of words that
// belong to other skills (email, schedule, test, secret, chart…), as real
// files and command output are.

const pkgJSON = `{
  "name": "shop-web",
  "version": "3.4.1",
  "private": true,
  "scripts": {
    "dev": "vite",
    "build": "tsc -b && vite build",
    "test": "vitest run",
    "lint": "eslint . --max-warnings 0",
    "email:preview": "node scripts/email-preview.js",
    "schedule:digest": "node scripts/send-weekly-digest.js"
  },
  "dependencies": {
    "react": "^18.3.1",
    "react-dom": "^18.3.1",
    "@tanstack/react-query": "^5.51.1",
    "date-fns": "^3.6.0",
    "recharts": "^2.12.7",
    "stripe": "^16.2.0"
  },
  "devDependencies": {
    "typescript": "^5.5.3",
    "vite": "^5.3.4",
    "vitest": "^2.0.3",
    "eslint": "^9.7.0"
  }
}`

const lsOutput = `README.md
docker-compose.yml
migrations
  0001_init.sql
  0002_orders.sql
  0003_add_coupon_code.sql
internal
  cart
  email
  report
  scheduler
  secrets
cmd
  shop
web
Makefile
go.mod
go.sum`

const gitStatusOut = `On branch feature/export
Your branch is ahead of 'origin/feature/export' by 2 commits.
Changes not staged for commit:
  modified:   internal/report/export.go
  modified:   internal/report/csv.go
Untracked files:
  internal/report/export_test.go
no changes added to commit (use "git add" and/or "git commit -a")`

const gitDiffOut = `diff --git a/internal/report/export.go b/internal/report/export.go
index 3b1c2de..8f0a9b1 100644
--- a/internal/report/export.go
+++ b/internal/report/export.go
@@ -41,12 +41,19 @@ func (e *Exporter) Write(ctx context.Context, w io.Writer, rows []Row) error {
-	for _, r := range rows {
-		fmt.Fprintf(w, "%s,%s,%d\n", r.Date, r.Customer, r.Cents)
-	}
+	cw := csv.NewWriter(w)
+	if err := cw.Write([]string{"date", "customer", "amount"}); err != nil {
+		return fmt.Errorf("write header: %w", err)
+	}
+	for _, r := range rows {
+		if err := cw.Write([]string{r.Date.Format(time.DateOnly), r.Customer, formatCents(r.Cents)}); err != nil {
+			return fmt.Errorf("write row %d: %w", r.ID, err)
+		}
+	}
+	cw.Flush()
+	return cw.Error()
 }`

const pyTestOut = `============================= test session starts ==============================
platform linux -- Python 3.12.4, pytest-8.2.2, pluggy-1.5.0
rootdir: /home/sam/work/billing
collected 48 items

tests/test_invoice.py ........F.....                                     [ 29%]
tests/test_tax.py ..........                                             [ 50%]
tests/test_email.py ........                                             [ 66%]
tests/test_schedule.py ................                                  [100%]

=================================== FAILURES ===================================
___________________________ test_invoice_total_rounding ___________________________

    def test_invoice_total_rounding():
        inv = Invoice(lines=[Line(qty=3, unit_price=Decimal("0.10"))])
>       assert inv.total() == Decimal("0.30")
E       AssertionError: assert Decimal('0.3000000000000000444') == Decimal('0.30')

tests/test_invoice.py:57: AssertionError
=========================== short test summary info ============================
FAILED tests/test_invoice.py::test_invoice_total_rounding - AssertionError
========================= 1 failed, 47 passed in 2.41s =========================`

const csvHead = `order_id,customer_id,order_date,amount,currency,channel,email
10001,00042,2026-01-03,19.99,EUR,web,anna@example.com
10002,42,03/01/2026,5.00,EUR,app,
10003,00107,2026-01-04,,EUR,web,li@example.org
10003,00107,2026-01-04,,EUR,web,li@example.org
10004,00233,2026-01-05,120.50,USD,phone,sam@example.net`

const k8sDescribe = `Name:             api-7d9f8b6c5d-x2k4q
Namespace:        prod
Status:           Running
Containers:
  api:
    Image:          registry.example.com/shop/api:3.4.1
    State:          Waiting
      Reason:       CrashLoopBackOff
    Last State:     Terminated
      Reason:       OOMKilled
      Exit Code:    137
    Restart Count:  14
    Limits:
      memory:  256Mi
    Liveness:   http-get http://:8080/healthz delay=5s timeout=1s period=10s
Events:
  Type     Reason     Age                  From     Message
  ----     ------     ----                 ----     -------
  Warning  BackOff    2m (x61 over 17m)    kubelet  Back-off restarting failed container api`

const ghActionsLog = `Run npm ci
npm ERR! code ERESOLVE
npm ERR! ERESOLVE could not resolve
npm ERR!
npm ERR! While resolving: shop-web@3.4.1
npm ERR! Found: react@18.3.1
npm ERR! node_modules/react
npm ERR!   react@"^18.3.1" from the root project
npm ERR!
npm ERR! Could not resolve dependency:
npm ERR! peer react@"^19.0.0" from @tanstack/react-query@5.62.0
npm ERR! Fix the upstream dependency conflict, or retry this command with --force or --legacy-peer-deps
Error: Process completed with exit code 1.`

const accessLog = `2026-11-29T19:58:01Z api[3] INFO  GET /v1/cart 200 12ms req=7f1a
2026-11-29T19:58:02Z api[1] ERROR upstream payments timeout after 5000ms req=7f1b
2026-11-29T19:58:02Z api[1] ERROR POST /v1/checkout 502 5003ms req=7f1b
2026-11-29T19:58:03Z api[2] WARN  db pool exhausted (50/50) waiting 1200ms
2026-11-29T19:58:04Z api[2] ERROR POST /v1/checkout 502 5001ms req=7f1d
2026-11-29T19:58:04Z worker[1] INFO  sent 120 reminder emails
2026-11-29T19:58:05Z api[1] ERROR upstream payments timeout after 5000ms req=7f1e
2026-11-29T19:58:06Z deploy INFO  rollout payments-gateway v2.8.0 complete`

const readmeOld = `# md2pdf

Converts markdown.

## Build
go build`

const emailsJSON = `[{"from":"billing@vendor.io","subject":"Invoice #4471 overdue","received":"2026-11-28T09:14:00Z","unread":true},
{"from":"ceo@acme.com","subject":"Board deck for Thursday","received":"2026-11-28T18:02:00Z","unread":true},
{"from":"newsletter@devweekly.com","subject":"This week in Rust","received":"2026-11-29T06:00:00Z","unread":true},
{"from":"hr@acme.com","subject":"Benefits enrolment closes Friday","received":"2026-11-27T11:40:00Z","unread":true},
{"from":"noreply@github.com","subject":"[shop] CI failed on main","received":"2026-11-29T07:31:00Z","unread":true}]`

const schemaSQL = `CREATE TABLE orders (
  id BIGSERIAL PRIMARY KEY,
  customer_id BIGINT NOT NULL REFERENCES customers(id),
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  status TEXT NOT NULL,
  total_cents BIGINT NOT NULL
);
CREATE INDEX orders_customer ON orders(customer_id);
-- 31,204,556 rows`

const explainOut = `Sort  (cost=4823911.02..4824011.02 rows=40000 width=48) (actual time=39112.4..39118.9 rows=40000 loops=1)
  ->  HashAggregate  (actual time=38990.1..39051.7 rows=40000 loops=1)
        ->  Seq Scan on orders o  (cost=0.00..3912044.56 rows=31204556 width=24) (actual time=0.02..21877.3 rows=31204556 loops=1)
              Filter: (date_trunc('month', created_at) = '2026-10-01 00:00:00+00'::timestamp with time zone)
              Rows Removed by Filter: 29911020
Planning Time: 0.4 ms
Execution Time: 39131.6 ms`
