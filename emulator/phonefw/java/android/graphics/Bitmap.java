package android.graphics;

import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.OutputStream;
import javax.imageio.IIOImage;
import javax.imageio.ImageIO;
import javax.imageio.ImageWriteParam;
import javax.imageio.ImageWriter;
import javax.imageio.stream.ImageOutputStream;

/** android.graphics.Bitmap over a java.awt image: scale and compress as the helper asks. */
public final class Bitmap {
    public enum CompressFormat { JPEG, PNG, WEBP }

    public enum Config { ALPHA_8, RGB_565, ARGB_4444, ARGB_8888, RGBA_F16, HARDWARE }

    private final BufferedImage img;
    private final Config config;

    private Bitmap(BufferedImage img, Config config) {
        this.img = img;
        this.config = config;
    }

    /**
     * decode reads the phone's PNG frame (framework-internal). From Android
     * 12 the capture is modelled as a HARDWARE bitmap, the less favourable
     * case: software drawing refuses it until copied.
     */
    public static Bitmap decode(byte[] png) {
        try {
            BufferedImage i = ImageIO.read(new ByteArrayInputStream(png));
            return i == null ? null : new Bitmap(i, android.os.Build.VERSION.SDK_INT >= 31 ? Config.HARDWARE : Config.ARGB_8888);
        } catch (IOException e) {
            return null;
        }
    }

    public int getWidth() { return img.getWidth(); }
    public int getHeight() { return img.getHeight(); }

    public Config getConfig() { return config; }

    public Bitmap copy(Config c, boolean mutable) {
        if (c == Config.HARDWARE) {
            throw new IllegalArgumentException("cannot copy to HARDWARE");
        }
        return new Bitmap(img, c);
    }

    public static Bitmap createScaledBitmap(Bitmap src, int w, int h, boolean filter) {
        if (src.config == Config.HARDWARE) {
            throw new IllegalArgumentException("Software rendering doesn't support hardware bitmaps");
        }
        BufferedImage out = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
        java.awt.Graphics2D g = out.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_INTERPOLATION,
                filter ? RenderingHints.VALUE_INTERPOLATION_BILINEAR : RenderingHints.VALUE_INTERPOLATION_NEAREST_NEIGHBOR);
        g.drawImage(src.img, 0, 0, w, h, null);
        g.dispose();
        return new Bitmap(out, Config.ARGB_8888);
    }

    public boolean compress(CompressFormat format, int quality, OutputStream stream) {
        if (config == Config.HARDWARE) {
            throw new IllegalStateException("compress of a HARDWARE bitmap is not modelled");
        }
        com.adbconnector.phonefw.Phone.call("encode", format.name(), String.valueOf(img.getWidth()), String.valueOf(img.getHeight()));
        try {
            if (format == CompressFormat.PNG) {
                return ImageIO.write(img, "png", stream);
            }
            BufferedImage rgb = img;
            if (img.getType() != BufferedImage.TYPE_INT_RGB) {
                rgb = new BufferedImage(img.getWidth(), img.getHeight(), BufferedImage.TYPE_INT_RGB);
                rgb.createGraphics().drawImage(img, 0, 0, null);
            }
            ImageWriter w = ImageIO.getImageWritersByFormatName("jpeg").next();
            ImageWriteParam p = w.getDefaultWriteParam();
            p.setCompressionMode(ImageWriteParam.MODE_EXPLICIT);
            p.setCompressionQuality(Math.max(0, Math.min(100, quality)) / 100f);
            try (ImageOutputStream o = ImageIO.createImageOutputStream(stream)) {
                w.setOutput(o);
                w.write(null, new IIOImage(rgb, null, null), p);
            }
            w.dispose();
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
