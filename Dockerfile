# offersync as a long-running container beside the seller's inventory.
#   docker build -t offersync .
#   docker run -v /srv/catalogue:/catalogue:ro -v offersync-state:/state \
#     -e OFFERSYNC_BASE_URL=https://marketplace.example -e OFFERSYNC_API_KEY_FILE=/run/secrets/offersync_key offersync
FROM node:20-bookworm-slim AS build
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --omit=dev
COPY . .

FROM node:20-bookworm-slim
WORKDIR /app
COPY --from=build /app /app
ENV OFFERSYNC_CATALOGUE_DIR=/catalogue OFFERSYNC_STATE_DB=/state/state.db NODE_ENV=production
RUN mkdir -p /state && chown node:node /state
USER node
VOLUME ["/state"]
EXPOSE 9464
HEALTHCHECK CMD node -e "fetch('http://127.0.0.1:9464/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
ENTRYPOINT ["node", "bin/offersync.js"]
CMD ["daemon"]
