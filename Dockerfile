# syntax=docker/dockerfile:1
# Production image: driftgate with terraform and tofu, running as a non-root user.

ARG NODE_IMAGE=node:22-bookworm-slim

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
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates curl unzip && rm -rf /var/lib/apt/lists/*
WORKDIR /dl
# Each archive is checked against the checksum file published with its release.
RUN curl -fsSLO "https://releases.hashicorp.com/terraform/${TERRAFORM_VERSION}/terraform_${TERRAFORM_VERSION}_linux_${TARGETARCH}.zip" \
 && curl -fsSLO "https://releases.hashicorp.com/terraform/${TERRAFORM_VERSION}/terraform_${TERRAFORM_VERSION}_SHA256SUMS" \
 && grep " terraform_${TERRAFORM_VERSION}_linux_${TARGETARCH}.zip\$" "terraform_${TERRAFORM_VERSION}_SHA256SUMS" | sha256sum -c - \
 && unzip -o "terraform_${TERRAFORM_VERSION}_linux_${TARGETARCH}.zip" terraform -d /usr/local/bin \
 && curl -fsSLO "https://github.com/opentofu/opentofu/releases/download/v${TOFU_VERSION}/tofu_${TOFU_VERSION}_linux_${TARGETARCH}.zip" \
 && curl -fsSLO "https://github.com/opentofu/opentofu/releases/download/v${TOFU_VERSION}/tofu_${TOFU_VERSION}_SHA256SUMS" \
 && grep " tofu_${TOFU_VERSION}_linux_${TARGETARCH}.zip\$" "tofu_${TOFU_VERSION}_SHA256SUMS" | sha256sum -c - \
 && unzip -o "tofu_${TOFU_VERSION}_linux_${TARGETARCH}.zip" tofu -d /usr/local/bin \
 && terraform version && tofu version

FROM ${NODE_IMAGE}
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates git openssh-client tini \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system driftgate && useradd --system --gid driftgate --home-dir /var/lib/driftgate --create-home driftgate
COPY --from=binaries /usr/local/bin/terraform /usr/local/bin/tofu /usr/local/bin/
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist/src ./dist/src
COPY examples ./examples
ENV NODE_ENV=production \
    PORT=3000 \
    DRIFTGATE_CONFIG=/etc/driftgate/driftgate.yml \
    TF_IN_AUTOMATION=1 \
    CHECKPOINT_DISABLE=1
USER driftgate
WORKDIR /var/lib/driftgate
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
ENTRYPOINT ["tini", "--", "node", "/app/dist/src/bin/driftgate.js"]
CMD ["serve"]
