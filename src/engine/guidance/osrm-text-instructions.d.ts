// The part of osrm-text-instructions (CommonJS, no types of its own) this service calls.
declare module 'osrm-text-instructions' {
  interface Compiler {
    compile(language: string, step: object, options?: { legCount?: number; legIndex?: number }): string;
  }
  function osrmTextInstructions(version: 'v5'): Compiler;
  export default osrmTextInstructions;
}
