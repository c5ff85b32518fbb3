import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * No Docker daemon runs where the tests run, so the image is not built here: these checks read the
 * Dockerfile's text for the steps that make the image the one meant.
 */
const dockerfile = readFileSync(join(import.meta.dirname, '../../Dockerfile'), 'utf8');
/** Continuation lines joined, so one RUN is one line. */
const text = dockerfile.replace(/\\\n/g, ' ');

function argDefault(name: string): string | undefined {
  return new RegExp(`^ARG ${name}=(\\S+)$`, 'm').exec(dockerfile)?.[1];
}

/** The position of a pattern in the joined text, -1 when it is not there. */
const at = (pattern: RegExp): number => text.search(pattern);

describe('Dockerfile', () => {
  it('pins every base image by digest', () => {
    const froms = [...dockerfile.matchAll(/^FROM\s+(?:--platform=\S+\s+)?(\S+)/gm)].map((m) => m[1]!);
    expect(froms.length).toBeGreaterThan(0);
    const stages = new Set([...dockerfile.matchAll(/^FROM\s.*\sAS\s+(\S+)/gim)].map((m) => m[1]!));
    for (const from of froms) {
      if (stages.has(from)) continue;
      const image = from.replace(/^\$\{(\w+)\}$/, (_, name: string) => argDefault(name) ?? from);
      expect(image, `FROM ${from}`).toMatch(/^[\w./:-]+@sha256:[0-9a-f]{64}$/);
    }
  });

  it("verifies HashiCorp's signature of terraform's SHA256SUMS against a pinned fingerprint before the checksum", () => {
    expect(argDefault('HASHICORP_PGP_FINGERPRINT')).toBe('C874011F0AB405110D02105534365D9472D7468F');
    const verify = at(
      /gpg [^&|]*--verify "terraform_\$\{TERRAFORM_VERSION\}_SHA256SUMS\.sig" "terraform_\$\{TERRAFORM_VERSION\}_SHA256SUMS"\s*\|\s*grep -E "\^\\\[GNUPG:\\\] VALIDSIG \.\* \$\{HASHICORP_PGP_FINGERPRINT\}\\\$"/,
    );
    expect(verify).toBeGreaterThan(0);
    const checksum = at(/_SHA256SUMS" \| sha256sum -c -/);
    expect(checksum).toBeGreaterThan(verify);
    expect(at(/unzip [^&]*terraform_/)).toBeGreaterThan(checksum);
  });

  it("verifies OpenTofu's signature of its checksums against a pinned fingerprint before the checksum", () => {
    expect(argDefault('OPENTOFU_PGP_FINGERPRINT')).toBe('E3E6E43D84CB852EADB0051D0C0AF313E5FD9F80');
    const verify = at(
      /gpg [^&|]*--verify "tofu_\$\{TOFU_VERSION\}_SHA256SUMS\.gpgsig" "tofu_\$\{TOFU_VERSION\}_SHA256SUMS"\s*\|\s*grep -E "\^\\\[GNUPG:\\\] VALIDSIG \.\* \$\{OPENTOFU_PGP_FINGERPRINT\}\\\$"/,
    );
    expect(verify).toBeGreaterThan(0);
    const checksum = at(/"tofu_\$\{TOFU_VERSION\}_SHA256SUMS" \| sha256sum -c -/);
    expect(checksum).toBeGreaterThan(verify);
    expect(at(/unzip [^&]*tofu_/)).toBeGreaterThan(checksum);
  });

  it('keeps the data dir in a volume its user owns, not beside a config mounted read-only', () => {
    // The user's home (useradd --create-home) is the data dir, so uid 10001 owns it.
    expect(text).toMatch(/useradd [^&]*--uid 10001 [^&]*--home-dir \/var\/lib\/driftgate --create-home/);
    expect(text).toMatch(/^ENV [^\n]*DRIFTGATE_DATA_DIR=\/var\/lib\/driftgate\s/m);
    expect(dockerfile).toMatch(/^VOLUME \/var\/lib\/driftgate$/m);
    expect(at(/^VOLUME /m)).toBeGreaterThan(at(/^USER driftgate$/m));
  });
});
