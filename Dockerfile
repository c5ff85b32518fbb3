# syntax=docker/dockerfile:1
# Production image: driftgate with terraform and tofu, running as a non-root user.

# Pinned by digest: a tag can be moved to other bytes, a digest cannot. To update it, see "The base image"
# in the README (the tag stays beside the digest so a reader knows what it is).
ARG NODE_IMAGE=node:22-bookworm-slim@sha256:43ac6c60b8f89723f746e8a92ce91abd5017e627ce1ddfe4238355d3a30b772c

FROM ${NODE_IMAGE} AS build
WORKDIR /app
# better-sqlite3 compiles from source when no prebuilt binary matches.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json vitest.config.ts ./
COPY src ./src
COPY bench ./bench
COPY test ./test
RUN npm run build && npm prune --omit=dev

FROM ${NODE_IMAGE} AS binaries
ARG TERRAFORM_VERSION=1.11.4
ARG TOFU_VERSION=1.9.1
ARG TARGETARCH=amd64
# The release signing keys, pinned by fingerprint: a key served from elsewhere, or a checksum file signed
# by any other key, fails the build. HashiCorp: https://www.hashicorp.com/trust/security; OpenTofu:
# https://opentofu.org/docs/intro/install/ (the key at get.opentofu.org/opentofu.asc).
ARG HASHICORP_PGP_FINGERPRINT=C874011F0AB405110D02105534365D9472D7468F
ARG OPENTOFU_PGP_FINGERPRINT=E3E6E43D84CB852EADB0051D0C0AF313E5FD9F80
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates curl unzip gnupg && rm -rf /var/lib/apt/lists/*
WORKDIR /dl
# Each checksum file's signature is verified against its pinned key (gpg's VALIDSIG status line ends with
# the primary key's fingerprint), then each archive against the verified checksum file.
RUN set -eu \
 && export GNUPGHOME="$(mktemp -d)" \
 && curl -fsSL -o hashicorp.asc "https://www.hashicorp.com/.well-known/pgp-key.txt" \
 && curl -fsSL -o opentofu.asc "https://get.opentofu.org/opentofu.asc" \
 && gpg --batch --import hashicorp.asc opentofu.asc \
 && curl -fsSLO "https://releases.hashicorp.com/terraform/${TERRAFORM_VERSION}/terraform_${TERRAFORM_VERSION}_linux_${TARGETARCH}.zip" \
 && curl -fsSLO "https://releases.hashicorp.com/terraform/${TERRAFORM_VERSION}/terraform_${TERRAFORM_VERSION}_SHA256SUMS" \
 && curl -fsSLO "https://releases.hashicorp.com/terraform/${TERRAFORM_VERSION}/terraform_${TERRAFORM_VERSION}_SHA256SUMS.sig" \
 && gpg --batch --status-fd 1 --verify "terraform_${TERRAFORM_VERSION}_SHA256SUMS.sig" "terraform_${TERRAFORM_VERSION}_SHA256SUMS" \
    | grep -E "^\[GNUPG:\] VALIDSIG .* ${HASHICORP_PGP_FINGERPRINT}\$" \
 && grep " terraform_${TERRAFORM_VERSION}_linux_${TARGETARCH}.zip\$" "terraform_${TERRAFORM_VERSION}_SHA256SUMS" | sha256sum -c - \
 && unzip -o "terraform_${TERRAFORM_VERSION}_linux_${TARGETARCH}.zip" terraform -d /usr/local/bin \
 && curl -fsSLO "https://github.com/opentofu/opentofu/releases/download/v${TOFU_VERSION}/tofu_${TOFU_VERSION}_linux_${TARGETARCH}.zip" \
 && curl -fsSLO "https://github.com/opentofu/opentofu/releases/download/v${TOFU_VERSION}/tofu_${TOFU_VERSION}_SHA256SUMS" \
 && curl -fsSLO "https://github.com/opentofu/opentofu/releases/download/v${TOFU_VERSION}/tofu_${TOFU_VERSION}_SHA256SUMS.gpgsig" \
 && gpg --batch --status-fd 1 --verify "tofu_${TOFU_VERSION}_SHA256SUMS.gpgsig" "tofu_${TOFU_VERSION}_SHA256SUMS" \
    | grep -E "^\[GNUPG:\] VALIDSIG .* ${OPENTOFU_PGP_FINGERPRINT}\$" \
 && grep " tofu_${TOFU_VERSION}_linux_${TARGETARCH}.zip\$" "tofu_${TOFU_VERSION}_SHA256SUMS" | sha256sum -c - \
 && unzip -o "tofu_${TOFU_VERSION}_linux_${TARGETARCH}.zip" tofu -d /usr/local/bin \
 && rm -rf "$GNUPGHOME" \
 && terraform version && tofu version

FROM ${NODE_IMAGE}
# A fixed uid/gid (10001): Kubernetes' runAsNonRoot can only check a numeric user, so the manifests in
# deploy/kubernetes run as this one, which owns the home and data dir here.
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates git openssh-client tini \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10001 driftgate \
 && useradd --system --uid 10001 --gid driftgate --home-dir /var/lib/driftgate --create-home driftgate
COPY --from=binaries /usr/local/bin/terraform /usr/local/bin/tofu /usr/local/bin/
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist/src ./dist/src
COPY examples ./examples
# The data dir (store, artifacts, scratch) is a volume owned by the image's user, wherever the config is
# mounted from (a read-only repository or ConfigMap): a config that sets dataDir itself still wins.
ENV NODE_ENV=production \
    PORT=3000 \
    DRIFTGATE_CONFIG=/etc/driftgate/driftgate.yml \
    DRIFTGATE_DATA_DIR=/var/lib/driftgate \
    TF_IN_AUTOMATION=1 \
    CHECKPOINT_DISABLE=1
USER driftgate
WORKDIR /var/lib/driftgate
VOLUME /var/lib/driftgate
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
ENTRYPOINT ["tini", "--", "node", "/app/dist/src/bin/driftgate.js"]
CMD ["serve"]
