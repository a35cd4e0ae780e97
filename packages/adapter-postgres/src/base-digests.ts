// A merge's bases as digests: a base is staged as the SHA-256 of the body it stands for, and the
// commit compares it with the SHA-256 of the stored body, so that each staged row carries 64
// characters in place of a second body; a found base is hashed as the body it was read from
// (`DecodedBodies`), any other as its encoding. SHA-256 rather than PostgreSQL's `md5`: no way
// is known to craft two bodies with one digest, and servers in FIPS mode refuse MD5.
import { hash } from "node:crypto";
import { DecodedBodies, type Product } from "@catalog-kit/catalog-core";

/**
 * The SQL digest of the text `column`, as `BaseDigests.of` computes it. `convert_to` gives the
 * text's bytes in UTF-8, which is the database's encoding (the store refuses any other), so no
 * conversion happens: the bytes hashed are those the products table holds.
 */
export const digestSql = (column: string): string => `encode(sha256(convert_to(${column}, 'UTF8')), 'hex')`;

/**
 * The digest a `null` base is staged as: no digest is empty, so it never equals a stored body's,
 * and the commit compares it with the empty string where no product has the id.
 */
export const NO_BASE = "";

/** The digests of bases, from the bodies of products `find` returned where it can. */
export class BaseDigests extends DecodedBodies {
  /** Each base's digest (`NO_BASE` for `null`), as COPY's text takes it. */
  of(bases: readonly (Product | null)[]): string[] {
    return bases.map((base) => (base === null ? NO_BASE : hash("sha256", this.body(base))));
  }
}
