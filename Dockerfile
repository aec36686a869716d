# offersync as a long-running container beside the seller's catalogue. See docs/operations.md, "Container".
#   docker build -t offersync .
#   docker run -v /srv/catalogue:/catalogue:ro -v offersync-state:/state -p 127.0.0.1:9464:9464 \
#     -e OFFERSYNC_BASE_URL=https://marketplace.example -e OFFERSYNC_API_KEY_FILE=/run/secrets/offersync_key \
#     -v /srv/secrets/offersync_key:/run/secrets/offersync_key:ro offersync

# Build: bundle the TypeScript into dist/cli (scripts/build.mjs, esbuild), then drop the dev dependencies. No compiler: better-sqlite3 ships prebuilt binaries
# (Node-API, one per platform) inside its package. No install script is needed either: the one dev dependency that
# has one is `node`, which puts Node 24 on PATH for machines whose own Node is older; this image is Node 24.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json ./
COPY scripts/build.mjs ./scripts/build.mjs
COPY src ./src
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

# Run: dist, production node_modules and config only; no compiler, no sources, no tests.
FROM node:24-bookworm-slim
ENV NODE_ENV=production \
    OFFERSYNC_CATALOGUE_DIR=/catalogue \
    OFFERSYNC_STATE_PATH=/state/state.db \
    OFFERSYNC_DAEMON_HEALTHHOST=0.0.0.0 \
    OFFERSYNC_DAEMON_HEALTHPORT=9464
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY bin ./bin
COPY config/default.yaml ./config/default.yaml
COPY config/example-catalogue ./config/example-catalogue
# The state volume belongs to the unprivileged user; the catalogue is mounted read-only at /catalogue.
RUN mkdir -p /state /catalogue && chown node:node /state
USER node
VOLUME ["/state"]
EXPOSE 9464
# `offersync healthcheck` reads the same configuration as the daemon, so it follows the configured port.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 CMD ["node", "/app/bin/offersync.js", "healthcheck"]
# A V8 heap limit from the container's memory limit (bin/container-entrypoint.sh), then bin/offersync.js.
ENTRYPOINT ["/app/bin/container-entrypoint.sh"]
CMD ["daemon"]
