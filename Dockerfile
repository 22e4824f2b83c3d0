# Gatehouse as an image. It installs the server's npm package, the same tarball `npm pack -w server`
# makes and server/test/package.test.ts installs in an empty folder, on plain Node: no TypeScript,
# no build tools and no npm cache in the final image; a non-root user; SQLite data on a volume.
#
#   docker build -t gatehouse .
#   docker run -p 8080:8080 -v gatehouse-data:/data \
#     -e GATEHOUSE_SECRET=… -e SMTP_URL=smtps://… -e PUBLIC_URL=https://auth.example.com gatehouse
#
# NODE_IMAGE is where it builds (it needs g++ and Python when better-sqlite3 has to compile) and
# RUN_IMAGE where it runs: the same Node major and the same Debian, so the compiled addon loads.
ARG NODE_IMAGE=node:20-bookworm
ARG RUN_IMAGE=node:20-bookworm-slim

# 1. pack: the checkout becomes gatehouse-<version>.tgz (prepack compiles dist/ and adds the built
#    dashboard). Only the server's, the dashboard's and the SDK's dependencies are installed.
#    The manifests go first, so a change to the sources alone reuses the installed layer.
FROM ${NODE_IMAGE} AS pack
WORKDIR /src
COPY package.json package-lock.json ./
COPY server/package.json server/
COPY dashboard/package.json dashboard/
COPY sdk/package.json sdk/
COPY react-native/package.json react-native/
COPY bench/package.json bench/
COPY examples/expo-chat/package.json examples/expo-chat/
RUN npm ci --workspace server --workspace dashboard --workspace sdk --include-workspace-root --no-audit --no-fund
COPY . .
RUN mkdir /out && npm pack --workspace server --pack-destination /out

# 2. install: the tarball into an empty folder with its production dependencies, as a user would
#    (better-sqlite3 compiles here when its prebuilt binary cannot be fetched; this stage has g++).
FROM ${NODE_IMAGE} AS install
WORKDIR /opt/gatehouse
COPY --from=pack /out/ /tmp/package/
RUN echo '{"name":"gatehouse-image","version":"1.0.0","private":true}' > package.json \
 && npm install --omit=dev --no-audit --no-fund /tmp/package/gatehouse-*.tgz \
 && rm -rf /tmp/package

# 3. run: the installed folder alone on the slim image, as its unprivileged `node` user.
FROM ${RUN_IMAGE} AS run
ENV NODE_ENV=production \
    DATABASE_URL=sqlite:/data/gatehouse.db \
    PORT=8080
WORKDIR /opt/gatehouse
COPY --from=install /opt/gatehouse/ /opt/gatehouse/
RUN mkdir -p /data && chown node:node /data && rm -rf /root/.npm
USER node
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "--min-semi-space-size=16", "--max-semi-space-size=16", "node_modules/gatehouse/bin/gatehouse.js", "serve"]
