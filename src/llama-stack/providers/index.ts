// External providers: their options, their install into the server's pod, their sidecars and their services of their own.
export * from './options';
export { SERVER_LABEL } from './service';
