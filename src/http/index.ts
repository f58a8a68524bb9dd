/** The HTTP side of the package: the Hono app, the server and the HTTP clients. */
export { createApp } from './create-app.js';
export { serve, type RunningServer } from './serve.js';
export { connect, connectSim, httpTransport, type ConnectOptions } from './connect.js';
export { openApiDocument } from './openapi.js';
