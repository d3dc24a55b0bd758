import { describeAuthMatrix } from '../support/auth-matrix.js';

describeAuthMatrix('docs');
