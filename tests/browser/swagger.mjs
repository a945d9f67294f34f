// Swagger UI at /docs, in a real headless Chromium: every operation of the OpenAPI document
// is listed, Authorize takes a token, and "Try it out" on GET /teams shows 200 and the teams.
//
//   node swagger.mjs BASE_URL TOKEN TEAM_NAME [SCREENSHOT.png]
import { chromium } from "playwright-core";

const [base, token, team, screenshot] = process.argv.slice(2);
if (!base || !token || !team) {
  console.error("usage: node swagger.mjs BASE_URL TOKEN TEAM_NAME [SCREENSHOT.png]");
  process.exit(2);
}

function fail(message) {
  console.error(`browser: ${message}`);
  process.exitCode = 1;
}

const spec = await (await fetch(`${base}/openapi.json`)).json();
const expected = new Set();
for (const [path, item] of Object.entries(spec.paths)) {
  for (const method of Object.keys(item)) expected.add(`${method.toUpperCase()} ${path}`);
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
  ],
});
try {
  const page = await browser.newPage();
  await page.goto(`${base}/docs`);
  await page.waitForSelector(".opblock", { timeout: 30000 });

  const listed = new Set(
    await page.$$eval(".opblock", (blocks) =>
      blocks.map((block) => {
        const method = block.querySelector(".opblock-summary-method")?.textContent.trim();
        const path = block.querySelector("[data-path]")?.getAttribute("data-path");
        return `${method} ${path}`;
      }),
    ),
  );
  const missing = [...expected].filter((operation) => !listed.has(operation));
  if (missing.length > 0) fail(`operations missing from the page: ${missing.join(", ")}`);
  else console.log(`browser: all ${expected.size} operations are listed`);

  // Authorize with the token.
  await page.click(".auth-wrapper .authorize");
  await page.fill(".modal-ux input[type=text], .modal-ux input[type=password]", token);
  await page.click(".modal-ux .auth-btn-wrapper button.authorize");
  await page.click(".modal-ux .auth-btn-wrapper button.btn-done");

  // Try GET /teams.
  const operation = page.locator(".opblock", { has: page.locator('.opblock-summary-path[data-path="/teams"]') }).filter({
    has: page.locator(".opblock-summary-method", { hasText: "GET" }),
  });
  await operation.locator(".opblock-summary").first().click();
  await operation.locator(".try-out__btn").click();
  await operation.locator(".execute").click();
  const status = operation.locator(".live-responses-table .response .response-col_status").first();
  await status.waitFor({ timeout: 30000 });
  const code = (await status.textContent()).trim();
  const body = await operation.locator(".live-responses-table .response-col_description pre").first().textContent();
  if (code !== "200") fail(`GET /teams answered ${code}: ${body}`);
  else if (!body.includes(`"${team}"`)) fail(`the response does not list team ${team}: ${body}`);
  else console.log(`browser: Try it out on GET /teams showed 200 with team ${team}`);
  if (screenshot) await page.screenshot({ path: screenshot, fullPage: false });
} finally {
  await browser.close();
}
