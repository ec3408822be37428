// The program tests/jfr.sh records: hot methods on four threads (recursion,
// a loop, allocations, a contended monitor, parking) and a fifth waiting in
// native code (accept on a loopback socket nothing connects to).  java Busy [MILLISECONDS]
import java.util.*;
import java.util.concurrent.locks.LockSupport;
public class Busy {
    static volatile long sink;
    static final Object lock = new Object();
    static long fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
    static long spin(long n) { long s = 0; for (long i = 0; i < n; i++) s += i * i ^ (s >>> 3); return s; }
    static void alloc() { List<byte[]> l = new ArrayList<>(); for (int i = 0; i < 2000; i++) l.add(new byte[(i % 64) * 128 + 16]); sink += l.size(); }
    static void big() { byte[] b = new byte[1 << 20]; sink += b.length; }
    static void contend() { synchronized (lock) { sink += spin(200000); } }
    static void nap() {
        // blocks in native code (Net.poll): what jdk.NativeMethodSample samples
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            s.setSoTimeout(50);
            s.accept();
        } catch (java.net.SocketTimeoutException e) {
            sink++;
        } catch (java.io.IOException e) {
            throw new RuntimeException(e);
        }
    }
    public static void main(String[] a) throws Exception {
        long end = System.nanoTime() + Long.parseLong(a.length > 0 ? a[0] : "4000") * 1000000L;
        Thread[] ts = new Thread[5];
        for (int t = 0; t < ts.length; t++) {
            final int k = t;
            ts[t] = new Thread(() -> {
                while (System.nanoTime() < end) {
                    switch (k) {
                    case 0: sink += fib(24); break;
                    case 1: sink += spin(300000); alloc(); break;
                    case 2: contend(); big(); LockSupport.parkNanos(2000000); break;
                    case 3: contend(); alloc(); break;
                    default: nap(); break;
                    }
                }
            }, "worker-" + t);
            ts[t].start();
        }
        for (Thread t : ts) t.join();
    }
}
