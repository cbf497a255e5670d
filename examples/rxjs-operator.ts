// The RxJS operator: a burst of 8 values paced to 4 per 200 ms, strictly; completes after the last.
import { from, map } from 'rxjs';
import { throttleQueue } from '../src/rxjs/index.js';

const started = performance.now();
from(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'])
  .pipe(
    throttleQueue({ rate: '4/200ms', strategy: 'sliding-window' }),
    map((value) => `${value} at ${Math.round(performance.now() - started)} ms`),
  )
  .subscribe({
    next: (line) => console.log(line),
    complete: () => console.log('complete'),
  });
