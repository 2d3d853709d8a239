package android.graphics;

/** android.graphics.Point. */
public class Point {
    public int x, y;

    public Point() {}
}
