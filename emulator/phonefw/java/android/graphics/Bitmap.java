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

    private final BufferedImage img;

    private Bitmap(BufferedImage img) {
        this.img = img;
    }

    /** decode reads the phone's PNG frame (framework-internal). */
    public static Bitmap decode(byte[] png) {
        try {
            BufferedImage i = ImageIO.read(new ByteArrayInputStream(png));
            return i == null ? null : new Bitmap(i);
        } catch (IOException e) {
            return null;
        }
    }

    public int getWidth() { return img.getWidth(); }
    public int getHeight() { return img.getHeight(); }

    public static Bitmap createScaledBitmap(Bitmap src, int w, int h, boolean filter) {
        BufferedImage out = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
        java.awt.Graphics2D g = out.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_INTERPOLATION,
                filter ? RenderingHints.VALUE_INTERPOLATION_BILINEAR : RenderingHints.VALUE_INTERPOLATION_NEAREST_NEIGHBOR);
        g.drawImage(src.img, 0, 0, w, h, null);
        g.dispose();
        return new Bitmap(out);
    }

    public boolean compress(CompressFormat format, int quality, OutputStream stream) {
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
