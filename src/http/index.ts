/** The HTTP side of the package: the app (WHATWG and node:http), the server and the HTTP clients. */
export { createApp, type HttpApp } from './create-app.js';
export { serve, type RunningServer, type ServeOptions } from './serve.js';
export { connect, connectSim, httpTransport, type ConnectOptions } from './connect.js';
export { openApiDocument } from './openapi.js';
