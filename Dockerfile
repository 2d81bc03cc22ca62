FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
COPY patches ./patches
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev
ENV PORT=8080 WAYMARK_DATA_DIR=/data
VOLUME /data
EXPOSE 8080
CMD ["node", "bin/waymark.js", "serve"]
