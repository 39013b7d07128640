import '../lib/demo/polyfills.js';
import '../lib/demo/quiet.js';
