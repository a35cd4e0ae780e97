// The root README's table of product fields, checked against the validation schema (through the
// JSON Schema generated from it, which /openapi.json publishes): the fields, their types, which
// are required, every limit, and which ones a GET answers.
import { readFile } from "node:fs/promises";
import { productJsonSchemas } from "@catalog-kit/catalog-core";
import { expect, it } from "vitest";

interface FieldSchema {
  type: string;
  maxLength?: number;
  minimum?: number;
  maxItems?: number;
  items?: FieldSchema;
}
interface ObjectSchema {
  properties: Record<string, FieldSchema>;
  required: string[];
}

const readme = await readFile(new URL("../README.md", import.meta.url), "utf8");
const { Product, ProductView } = productJsonSchemas() as { Product: ObjectSchema; ProductView: ObjectSchema };

// The rows of the table under "## Product fields": field, type, required, limits, in GET.
function tableRows(): string[][] {
  const section = readme.slice(readme.indexOf("\n## Product fields\n") + 1);
  const table = section.slice(0, section.indexOf("\n## ", 1));
  return [...table.matchAll(/^\| `(\w+)`(.*)\|$/gm)].map(([, field, rest]) => [
    field as string,
    ...(rest as string)
      .split("|")
      .slice(1)
      .map((cell) => cell.trim()),
  ]);
}

const typeName = (schema: FieldSchema): string =>
  schema.type === "array" && schema.items ? `array of ${schema.items.type}s` : schema.type;
const figure = (n: number) => n.toLocaleString("en-US");

it("lists every field of the schema once, in the schema's order", () => {
  expect(tableRows().map(([field]) => field)).toEqual(Object.keys(Product.properties));
});

it.each(Object.entries(Product.properties))("%s: its type, whether required, its limits, and GET", (field, schema) => {
  const [, type, required, limits, inGet] = tableRows().find(([name]) => name === field) ?? [];
  expect(type).toBe(typeName(schema));
  expect(required).toBe(Product.required.includes(field) ? "yes" : "no");
  expect(inGet).toBe(field in ProductView.properties ? "yes" : "no");
  const maxLength = schema.maxLength ?? schema.items?.maxLength;
  if (maxLength !== undefined) expect(limits).toContain(`${figure(maxLength)} characters`);
  if (schema.maxItems !== undefined) expect(limits).toContain(`at most ${figure(schema.maxItems)} entries`);
  if (schema.minimum !== undefined) expect(limits).toContain(`≥ ${figure(schema.minimum)}`);
  if ((schema.items ?? schema).type === "string" && Product.required.includes(field))
    expect(limits).toContain("not blank");
});
