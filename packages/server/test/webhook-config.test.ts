// The webhooks' configuration: defaults, located errors, and targets on a literal non-public
// address refused at start-up unless webhookTargets.allowPrivate.
import { describe, expect, it } from "vitest";
import { parseConfig } from "../src/config.ts";
import { WEBHOOK_DELIVERY_DEFAULTS } from "../src/webhooks/webhook-config.ts";
import { configIssues } from "./support/config-issues.ts";
import { SECRETS } from "./support/webhook-target.ts";

const base = {
  sites: [{ siteId: "shop-1", siteType: "shopify" }],
  tokens: [{ token: "admin-secret", sites: "*" }],
  storage: { adapter: "memory" },
};
const hook = { url: "https://erp.example/hooks/catalog", secrets: [SECRETS[0]], sites: "*" };

const issuesOf = (input: object) => configIssues({ ...base, ...input });

describe("the webhooks' configuration", () => {
  it("takes the issue's example, and fills in the events, the targets' rule and the delivery's timing", () => {
    const config = parseConfig({
      ...base,
      webhooks: [{ ...hook, secrets: [...SECRETS], sites: [{ siteId: "shop-1", siteType: "shopify" }] }],
    });
    expect(config.webhooks).toEqual([
      {
        ...hook,
        secrets: [...SECRETS],
        events: ["import.succeeded", "import.failed"],
        sites: [{ siteId: "shop-1", siteType: "shopify" }],
      },
    ]);
    expect(config.webhookTargets).toEqual({ allowPrivate: false });
    expect(config.webhookDelivery).toEqual(WEBHOOK_DELIVERY_DEFAULTS);
    expect(parseConfig(base).webhooks).toEqual([]);
  });

  it("names the key of each bad value", () => {
    expect(
      issuesOf({
        webhooks: [
          { url: "ftp://erp.example/x", secrets: ["s3cret"], events: ["import.started"], sites: [] },
          { url: "https://user:pw@erp.example/", secrets: [`whsec_${Buffer.alloc(8).toString("base64")}`], sites: "*" },
          { url: "erp.example", secrets: [], sites: "*", extra: 1 },
        ],
        webhookTargets: { allowPrivate: "yes" },
        webhookDelivery: { timeoutMs: 0, maxAgeMs: 8 * 86_400_000, leaseMs: 1000.5, pollMs: 5 },
      }),
    ).toEqual([
      "webhooks[0].url: Must be an https:// or http:// URL",
      'webhooks[0].secrets[0]: Must be "whsec_" followed by base64 (Standard Webhooks)',
      "webhooks[0].events[0]: Must be one of import.succeeded, import.failed",
      "webhooks[0].sites: Must list at least one site",
      "webhooks[1].url: Must not hold a user name or password: the signature authenticates the sender",
      "webhooks[1].secrets[0]: Must hold 24 to 64 bytes once decoded from base64",
      "webhooks[2].url: Must be an absolute URL",
      "webhooks[2].secrets: Must list at least one secret",
      "webhooks[2].extra: Unknown key",
      "webhookTargets.allowPrivate: Must be true or false",
      "webhookDelivery.maxAgeMs: Must be at most 604800000",
      "webhookDelivery.timeoutMs: Must be at least 100",
      "webhookDelivery.leaseMs: Must be an integer",
      "webhookDelivery.pollMs: Must be at least 10",
    ]);
  });

  it("refuses a target on a literal loopback, private, link-local, unspecified, CGNAT or unique-local address", () => {
    const hosts = [
      "127.0.0.1",
      "10.1.2.3",
      "172.16.0.1",
      "192.168.1.1",
      "169.254.169.254",
      "0.0.0.0",
      "100.64.0.1",
      "[::1]",
      "[fd00::1]",
      "[fe80::1]",
      "[::ffff:127.0.0.1]",
      "[::]",
    ];
    const webhooks = hosts.map((host) => ({ ...hook, url: `https://${host}:8443/hooks` }));
    const issues = issuesOf({ webhooks });
    expect(issues).toHaveLength(hosts.length);
    issues.forEach((issue, w) => {
      expect(issue).toMatch(
        new RegExp(
          `^webhooks\\[${w}\\]\\.url: .+ is a \\w+ address, not a public one: refused unless webhookTargets.allowPrivate is true$`,
        ),
      );
    });
    expect(issues[0]).toBe(
      "webhooks[0].url: 127.0.0.1 is a loopback address, not a public one: refused unless webhookTargets.allowPrivate is true",
    );
    expect(parseConfig({ ...base, webhooks, webhookTargets: { allowPrivate: true } }).webhooks).toHaveLength(
      hosts.length,
    );
    // A public literal address and a name pass: a name is checked when it is resolved, at each delivery.
    expect(
      parseConfig({
        ...base,
        webhooks: [
          { ...hook, url: "https://93.184.215.14/h" },
          { ...hook, url: "http://localhost:9/h" },
        ],
      }).webhooks,
    ).toHaveLength(2);
  });

  it("refuses a url given twice, and a lease no longer than a send's timeout", () => {
    expect(
      issuesOf({
        webhooks: [hook, { ...hook, url: "https://ERP.example:443/hooks/catalog" }],
        webhookDelivery: { timeoutMs: 5_000, leaseMs: 5_000, retryBaseMs: 10_000, retryMaxMs: 1_000 },
      }),
    ).toEqual([
      "webhooks[1].url: Another webhook has this url",
      "webhookDelivery.leaseMs: Must be longer than webhookDelivery.timeoutMs, so that a send ends within its lease",
      "webhookDelivery.retryMaxMs: Must be at least webhookDelivery.retryBaseMs",
    ]);
  });
});
