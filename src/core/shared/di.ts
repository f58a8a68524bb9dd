/**
 * The one place core pulls in dependency-injection decorators. Importing reflect-metadata here
 * guarantees the polyfill is loaded before any decorated class is evaluated.
 */
import 'reflect-metadata';

export { inject, injectable, optional, type ServiceIdentifier } from 'inversify';
