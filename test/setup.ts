import '../local/polyfills.js';
import '../local/quiet.js';
