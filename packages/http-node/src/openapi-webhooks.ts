// The document's OpenAPI 3.1 `webhooks`: what the standalone server POSTs to a configured
// endpoint when an import ends, signed as Standard Webhooks 1.0 says. The payload's schema is the
// import record's, generated from the catalog's own valibot schema, without its problems.
import { importRecordJsonSchema } from "@catalog-kit/catalog-core";

const HEADERS = {
  "webhook-id": {
    description: "The message's id (`msg_...`): the same on every try of one delivery, so a receiver drops a repeat",
    required: true,
    schema: { type: "string", pattern: "^msg_[A-Za-z0-9_-]+$" },
  },
  "webhook-timestamp": {
    description: "When this try was signed, in seconds since the epoch; refuse one far from your clock (5 minutes)",
    required: true,
    schema: { type: "string", pattern: "^[0-9]+$" },
  },
  "webhook-signature": {
    description:
      "Space-separated `v1,<base64>` signatures, one per configured secret: the HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}` under the bytes of the secret's base64 after `whsec_`. One that verifies is enough.",
    required: true,
    schema: { type: "string", pattern: "^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$" },
  },
};

// The record as sent: its `problems` left out (`problemCount` says how many; the report is downloaded apart).
function payloadRecord(state: string): object {
  const { $schema: _, ...schema } = importRecordJsonSchema() as {
    $schema?: string;
    properties: Record<string, object>;
    required?: string[];
  };
  const { problems: _problems, ...properties } = schema.properties;
  properties.state = { ...properties.state, const: state };
  return { ...schema, properties, required: (schema.required ?? []).filter((key) => key !== "problems") };
}

function event(type: "import.succeeded" | "import.failed", state: string, summary: string): object {
  return {
    post: {
      operationId: type === "import.succeeded" ? "importSucceeded" : "importFailed",
      summary,
      description: `Sent at least once to each configured webhook whose \`events\` and \`sites\` cover the import (dry runs and idempotent replays are not sent), signed per Standard Webhooks 1.0. Answer 2xx within the configured timeout; any other status, a timeout or a refused connection is tried again with backoff (honouring \`Retry-After\`) for up to 24 hours, with the same \`webhook-id\`; 410 disables the endpoint.`,
      tags: ["Import"],
      security: [],
      parameters: Object.entries(HEADERS).map(([name, header]) => ({ name, in: "header", ...header })),
      requestBody: {
        required: true,
        content: {
          "application/json": {
            schema: {
              type: "object",
              required: ["type", "timestamp", "data"],
              properties: {
                type: { const: type },
                timestamp: { type: "string", format: "date-time", description: "When the import ended" },
                data: {
                  ...payloadRecord(state),
                  description: `The import's record, \`state\` "${state}", without \`problems\``,
                },
              },
            },
          },
        },
      },
      responses: {
        "200": { description: "Received: any 2xx status ends the delivery" },
        "410": { description: "Gone: the server sends this endpoint nothing more until it restarts" },
      },
    },
  };
}

/** The document's `webhooks`: the two events of an import's end. */
export function openApiWebhooks(): Record<string, object> {
  return {
    "import.succeeded": event("import.succeeded", "succeeded", "An import succeeded"),
    "import.failed": event("import.failed", "failed", "An import failed"),
  };
}
