/** The one fake clock lives in libs/testing; kept as an alias for the specs that import it from here. */
export { FakeClock } from '#testing';
