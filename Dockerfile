# syntax=docker/dockerfile:1
# Waymark: the service with the map of the bundled extract built in. The extract comes from a build context
# of its own, the repository's osm/ by default (another directory of extracts works the same):
#   docker build --build-context osm=osm -t waymark .
# (docker compose passes it, see docker-compose.yml.) OSM_EXTRACT picks another .osm.pbf of that context.

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY patches ./patches
RUN npm ci --no-audit --no-fund
COPY . .
ARG OSM_EXTRACT=liechtenstein.osm.pbf
COPY --from=osm ${OSM_EXTRACT} /tmp/extract.osm.pbf
# The compiled service, the map of the extract (progress on the build log), then only what runs.
RUN npm run build \
 && node bin/waymark.js map build --osm /tmp/extract.osm.pbf --out /app/map \
 && npm prune --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    PORT=8080 \
    HOST=0.0.0.0 \
    WAYMARK_DATA_DIR=/data \
    WAYMARK_MAP=/app/map
WORKDIR /app
# Read at run time: package.json (the project root and the version), the migrations, the compiled
# service and the dashboard in dist/, the CLI, the map. Owned by root: the service cannot change them.
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/bin ./bin
COPY --from=build /app/src/db/migrations ./src/db/migrations
COPY --from=build /app/map ./map
# The data directory (demo key and password, the embedded database when DATABASE_URL is not set) is
# the non-root user's, 0700.
RUN mkdir -p /data && chown node:node /data && chmod 0700 /data
USER node
VOLUME ["/data"]
EXPOSE 8080
# Healthy once GET /ready is 200: database reachable, migrations applied, map loaded, compute pool up.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/ready`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# docker stop sends SIGTERM: requests in flight and running jobs finish (WAYMARK_SHUTDOWN_TIMEOUT), exit 0.
STOPSIGNAL SIGTERM
CMD ["node", "bin/waymark.js", "serve"]
